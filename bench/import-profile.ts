// Where a customer import's time goes, statement by statement and function by function, in this
// checkout and in an earlier commit (BENCH_BEFORE_REF, default 25a32dc) built beside it: each imports
// the same customers into a fresh database of the same PostgreSQL (DATABASE_URL, or an embedded one
// started with pg_stat_statements), with the service's CPU profile on. Prints, per build, the rates,
// the statements by total time (pg_stat_statements) and the service's functions by self time.
// A diagnostic for bench/FINDINGS.md, not part of `npm run bench`:
//   npm run build && node dist/bench/import-profile.js
// On DATABASE_URL's server, pg_stat_statements must be in shared_preload_libraries (else the
// statements table is left out).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { importRates } from './bench-service';
import { benchCustomer, runAgainstBefore } from './before-after.bench';
import { startServiceProcess, type ServiceProcess } from './service-process';

const CUSTOMERS = Number(process.env.BENCH_PROFILE_CUSTOMERS ?? 50_000);
const CLIENTS = Number(process.env.BENCH_PROFILE_CLIENTS ?? 1);
const PER_REQUEST = 1000;

interface Statement {
  query: string;
  calls: number;
  total_ms: number;
  rows: number;
}

async function statements(service: ServiceProcess): Promise<Statement[] | undefined> {
  try {
    const { rows } = await service.copyClient.query<Statement>(
      `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls::int, total_exec_time AS total_ms, rows::int
         FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        ORDER BY total_exec_time DESC LIMIT ${Number(process.env.BENCH_PROFILE_STATEMENTS ?? 15)}`,
    );
    return rows;
  } catch {
    return undefined;
  }
}

/** Every statement sent by a client (not those run inside functions): how many, and their time. */
async function topLevel(service: ServiceProcess): Promise<{ calls: number; ms: number } | undefined> {
  try {
    const { rows } = await service.copyClient.query<{ calls: number; ms: number }>(
      `SELECT sum(calls)::int AS calls, sum(total_exec_time)::float8 AS ms
         FROM pg_stat_statements WHERE toplevel AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    return rows[0];
  } catch {
    return undefined;
  }
}

/** The functions of a V8 CPU profile by self time (ms), the largest first. */
function profileTop(dir: string, n = 15): Array<{ fn: string; ms: number }> {
  const file = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(dir, f))[0];
  if (!file) return [];
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '~/').replace(/^.*\/dist\//, '')}:${lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...self].map(([fn, ms]) => ({ fn, ms })).sort((a, b) => b.ms - a.ms).slice(0, n);
}

async function profileOf(root: string, label: string): Promise<void> {
  const profDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-prof-'));
  const previous = process.env.BENCH_SERVICE_NODE_ARGS;
  process.env.BENCH_SERVICE_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${profDir}`;
  const service = await startServiceProcess({}, root, { pgStatStatements: true });
  process.env.BENCH_SERVICE_NODE_ARGS = previous ?? '';
  let rates: { accepted: number; readable: number };
  let top: Statement[] | undefined;
  let sent: { calls: number; ms: number } | undefined;
  try {
    await service.copyClient.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').catch(() => undefined);
    await service.copyClient.query('SELECT pg_stat_statements_reset()').catch(() => undefined);
    rates = await importRates(service, '/api/customers/upload/', 'customers', Array.from({ length: CUSTOMERS }, (_, n) => benchCustomer('PR', n)), PER_REQUEST, CLIENTS);
    top = await statements(service);
    sent = await topLevel(service);
  } finally {
    await service.close();
  }
  const k = CUSTOMERS / 1000;
  console.log(`\n### ${label}\n`);
  console.log(`${CUSTOMERS.toLocaleString('en')} customers, ${CLIENTS} client(s): accepted ${Math.round(rates.accepted).toLocaleString('en')} records/s, end to end ${Math.round(rates.readable).toLocaleString('en')} records/s\n`);
  if (top) {
    console.log('| statement | calls | total ms | ms per 1,000 records |');
    console.log('|---|---:|---:|---:|');
    for (const s of top) console.log(`| \`${s.query.slice(0, 110).replace(/\|/g, '\\|')}\` | ${s.calls} | ${Math.round(s.total_ms)} | ${(s.total_ms / k).toFixed(2)} |`);
  }
  if (sent) console.log(`\nStatements sent (pg_stat_statements, top level): ${sent.calls.toLocaleString('en')}, ${(sent.calls / k).toFixed(1)} per 1,000 records; ${Math.round(sent.ms)} ms, ${(sent.ms / k).toFixed(1)} ms per 1,000 records.`);
  const functions = profileTop(profDir, 10_000);
  const busy = functions.filter((f) => !f.fn.startsWith('(idle)')).reduce((sum, f) => sum + f.ms, 0);
  console.log(`\nService CPU (profile samples, idle left out): ${Math.round(busy)} ms, ${(busy / k).toFixed(1)} ms per 1,000 records.\n`);
  console.log('| service function (self time) | ms |');
  console.log('|---|---:|');
  for (const f of functions.slice(0, 25)) console.log(`| \`${f.fn.slice(0, 120)}\` | ${Math.round(f.ms)} |`);
  fs.rmSync(profDir, { recursive: true, force: true });
}

if (require.main === module) {
  runAgainstBefore(async (before, root) => {
    await profileOf(before.root, `commit ${before.commit}`);
    await profileOf(root, 'this checkout');
  });
}
