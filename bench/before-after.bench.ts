// Issue [8/10]'s cost, in one run: customer import end to end and webhook delivery by this checkout's
// `mds start` and by the commit before personal data left the log and attempts were recorded by
// reference (BENCH_BEFORE_REF, default 7c814c3), built beside it from the same node_modules, each on a
// fresh database of the same PostgreSQL, alternating which goes first. The earlier commit lacks
// everything since, not only that work: the ratio is this checkout against the figure of that day.
// `npm run bench` (not part of `npm test`).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { median } from './bench-database';
import { importRates } from './bench-service';
import { deliverThroughService, startReceiver, type Receiver } from './delivery';
import { startServiceProcess } from './service-process';

const ROOT = path.resolve(__dirname, '../..');
const BEFORE_REF = process.env.BENCH_BEFORE_REF ?? '7c814c3';
const CUSTOMERS = Number(process.env.BENCH_BEFORE_AFTER_CUSTOMERS ?? 50_000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20_000);
const REPS = Number(process.env.BENCH_REPS ?? 3);
const PER_REQUEST = 1000;

/** The same customers as scenario 1 (13 fields, personal ones among them). */
const customer = (rep: number, n: number) => ({
  external_id: `BA${rep}-${n}`, email: `ba${rep}.${n}@example.com`, phone_number: `+35840${String(n).padStart(7, '0')}`,
  first_name: `First${n}`, last_name: `Last${n}`, city: 'Helsinki', zip_code: '00100', country: 'FI', can_email: n % 2 === 0,
  date_joined: '2024-03-01T10:00:00Z', tags: ['vip', `t${n % 10}`], ACME__tier: 'gold', shop_id: 'web',
});

/** A worktree of `ref` in a temporary folder, built with this checkout's node_modules. */
export function buildBefore(ref: string): { root: string; commit: string; remove(): void } {
  const commit = execFileSync('git', ['rev-parse', '--short', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-before-'));
  execFileSync('git', ['worktree', 'add', '--detach', root, commit], { cwd: ROOT, stdio: 'ignore' });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  process.stderr.write(`building ${commit} in ${root}\n`);
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, ['scripts/copy-assets.js'], { cwd: root, stdio: 'inherit' });
  return {
    root,
    commit,
    remove: () => execFileSync('git', ['worktree', 'remove', '--force', root], { cwd: ROOT, stdio: 'ignore' }),
  };
}

async function measure(root: string, rep: number, receiver: Receiver): Promise<{ readable: number; accepted: number; delivery: number }> {
  const service = await startServiceProcess({ OUTLET_ALLOW_PRIVATE: 'true', OUTLET_POLL_MS: '20' }, root);
  try {
    const rates = await importRates(service, '/api/customers/upload/', 'customers', Array.from({ length: CUSTOMERS }, (_, n) => customer(rep, n)), PER_REQUEST);
    const { rate } = await deliverThroughService(service, receiver, MESSAGES, `before-after ${rep}`);
    return { readable: rates.readable, accepted: rates.accepted, delivery: rate };
  } finally {
    await service.close();
  }
}

async function main() {
  const before = buildBefore(BEFORE_REF);
  const receiver = await startReceiver();
  const figures = { before: [] as Array<Awaited<ReturnType<typeof measure>>>, after: [] as Array<Awaited<ReturnType<typeof measure>>> };
  try {
    for (let rep = 0; rep < REPS; rep++) {
      // Alternating which goes first, so neither always has the warmer machine.
      const order = rep % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
      for (const which of order) figures[which].push(await measure(which === 'before' ? before.root : ROOT, rep, receiver));
    }
  } finally {
    await receiver.close();
    before.remove();
  }
  const m = (which: 'before' | 'after', k: 'readable' | 'accepted' | 'delivery') => median(figures[which].map((f) => f[k]));
  const f = (x: number) => Math.round(x).toLocaleString('en');
  console.log(`### Personal data apart from the log, and attempts by reference: before and after (issue [8/10])\n`);
  console.log(`${os.cpus().length} cores, Node ${process.version}; this checkout's \`mds start\` against commit ${before.commit} (before that work; built in the same run), each on a fresh database, alternating which goes first, median of ${REPS}: ${CUSTOMERS.toLocaleString('en')} customers (13 fields) in requests of ${PER_REQUEST} by one client, then ${MESSAGES.toLocaleString('en')} messages delivered by a signed, batched webhook outlet. The earlier commit lacks everything since it, not only that work.\n`);
  console.log('| measure | before | after | after / before |');
  console.log('|---|---:|---:|---:|');
  for (const [label, k] of [['customers accepted (records/s)', 'accepted'], ['customers end to end, run completed (records/s)', 'readable'], ['webhook delivery, every attempt recorded (messages/s)', 'delivery']] as const) {
    console.log(`| ${label} | ${f(m('before', k))} | ${f(m('after', k))} | ${(m('after', k) / m('before', k)).toFixed(2)} |`);
  }
  console.log(`\nEach run (before / after): ${figures.before.map((b, i) => `${f(b.readable)} / ${f(figures.after[i].readable)} records/s, ${f(b.delivery)} / ${f(figures.after[i].delivery)} messages/s`).join('; ')}.\n`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
