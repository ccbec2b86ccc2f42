// Issue [19]'s comparison, in one run: customer import (accepted, and end to end until the run is
// completed) by one and by four clients, and webhook delivery, by this checkout's `mds start` and by an
// earlier commit (BENCH_BEFORE_REF, default 25a32dc: before personal data left the log), built beside
// it from the same node_modules, each on a fresh database of the same PostgreSQL (DATABASE_URL, else
// an embedded one), alternating which goes first; beside them a plain COPY of the same rows into a
// table with only a primary key. The earlier commit lacks everything since, not only that work.
// `npm run bench` (not part of `npm test`).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { median } from './bench-database';
import { copyRate, csvLine, importRates } from './bench-service';
import { deliverThroughService, startReceiver, type Receiver } from './delivery';
import { startServiceProcess } from './service-process';

const ROOT = path.resolve(__dirname, '../..');
const BEFORE_REF = process.env.BENCH_BEFORE_REF ?? '25a32dc';
const CLIENTS = [1, Number(process.env.BENCH_CLIENTS ?? 4)];
const CUSTOMERS = Number(process.env.BENCH_BEFORE_AFTER_CUSTOMERS ?? 50_000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20_000);
const REPS = Number(process.env.BENCH_REPS ?? 3);
const PER_REQUEST = 1000;

/** The same customers as scenario 1 (13 fields, personal ones among them), their ids and e-mails marked with `tag`. */
export const benchCustomer = (tag: string, n: number) => ({
  external_id: `${tag}-${n}`, email: `${tag.toLowerCase()}.${n}@example.com`, phone_number: `+35840${String(n).padStart(7, '0')}`,
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

/**
 * A diagnostic's run against BEFORE_REF built beside this checkout (bench/import-profile,
 * bench/import-cpu): `measure` gets the earlier build and this checkout's root; the worktree goes
 * afterwards, and a failure exits with 1.
 */
export function runAgainstBefore(measure: (before: { root: string; commit: string }, root: string) => Promise<void>): void {
  const before = buildBefore(BEFORE_REF);
  measure(before, ROOT)
    .finally(() => before.remove())
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}

interface Figures {
  /** Per client count: records/s accepted, end to end, and COPY rows/s of the same rows. */
  imports: Array<{ clients: number; accepted: number; readable: number; copy: number }>;
  delivery: number;
  server: string;
}

const COPY_TABLE = `CREATE TABLE IF NOT EXISTS copy_customers (external_id text PRIMARY KEY, email text, phone_number text, first_name text, last_name text,
  city text, zip_code text, country text, can_email boolean, date_joined timestamptz, tags jsonb, company jsonb, shop_id text)`;

async function measure(root: string, rep: number, receiver: Receiver): Promise<Figures> {
  const service = await startServiceProcess({ OUTLET_ALLOW_PRIVATE: 'true', OUTLET_POLL_MS: '20' }, root);
  try {
    await service.copyClient.query(COPY_TABLE);
    const imports: Figures['imports'] = [];
    for (const clients of CLIENTS) {
      const rows = Array.from({ length: CUSTOMERS }, (_, n) => benchCustomer(`BA${rep * 10 + clients}`, n));
      const lines = rows.map((c) => csvLine([c.external_id, c.email, c.phone_number, c.first_name, c.last_name, c.city, c.zip_code, c.country, c.can_email, c.date_joined, JSON.stringify(c.tags), JSON.stringify({ ACME__tier: c.ACME__tier }), c.shop_id]));
      const copy = await copyRate(service.copyClient, 'copy_customers', lines);
      const rates = await importRates(service, '/api/customers/upload/', 'customers', rows, PER_REQUEST, clients);
      imports.push({ clients, accepted: rates.accepted, readable: rates.readable, copy });
    }
    const { rate } = await deliverThroughService(service, receiver, MESSAGES, `before-after ${rep}`);
    return { imports, delivery: rate, server: service.db.serverVersion };
  } finally {
    await service.close();
  }
}

async function main() {
  const before = buildBefore(BEFORE_REF);
  const receiver = await startReceiver();
  const figures = { before: [] as Figures[], after: [] as Figures[] };
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
  const f = (x: number) => Math.round(x).toLocaleString('en');
  const imp = (which: 'before' | 'after', clients: number, k: 'accepted' | 'readable' | 'copy') => median(figures[which].map((x) => x.imports.find((i) => i.clients === clients)![k]));
  const delivery = (which: 'before' | 'after') => median(figures[which].map((x) => x.delivery));
  const pg = figures.after[0].server;
  console.log(`### Customer import and delivery against an earlier commit (issue [19])\n`);
  console.log(`${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${pg}${process.env.DATABASE_URL ? ' (DATABASE_URL, over TCP)' : ' (embedded)'}; this checkout's \`mds start\` against commit ${before.commit} (built in the same run), each on a fresh database, alternating which goes first, median of ${REPS}: ${CUSTOMERS.toLocaleString('en')} customers (13 fields) in requests of ${PER_REQUEST} by ${CLIENTS.join(' and by ')} clients, then ${MESSAGES.toLocaleString('en')} messages delivered by a signed, batched webhook outlet. COPY: the same rows into a table with only a primary key, in the same run. The earlier commit lacks everything since it, not only that work.\n`);
  console.log(`| measure | ${before.commit} | this checkout | this / ${before.commit} |`);
  console.log('|---|---:|---:|---:|');
  for (const clients of CLIENTS) {
    for (const [label, k] of [['accepted (records/s)', 'accepted'], ['end to end, run completed (records/s)', 'readable']] as const) {
      console.log(`| ${label}, ${clients} client${clients > 1 ? 's' : ''} | ${f(imp('before', clients, k))} | ${f(imp('after', clients, k))} | ${(imp('after', clients, k) / imp('before', clients, k)).toFixed(2)} |`);
    }
    const share = (which: 'before' | 'after') => `${((100 * imp(which, clients, 'readable')) / imp(which, clients, 'copy')).toFixed(1)}%`;
    console.log(`| end to end as a share of a plain COPY, ${clients} client${clients > 1 ? 's' : ''} | ${share('before')} | ${share('after')} | |`);
  }
  console.log(`| webhook delivery, every attempt recorded (messages/s) | ${f(delivery('before'))} | ${f(delivery('after'))} | ${(delivery('after') / delivery('before')).toFixed(2)} |`);
  console.log(`\nEach run, end to end with one client (before / after): ${figures.before.map((b, i) => `${f(b.imports[0].readable)} / ${f(figures.after[i].imports[0].readable)}`).join('; ')} records/s.\n`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
