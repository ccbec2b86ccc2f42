// Audit trail: `mds audit export` (JSON lines chained with SHA-256, as an auditor runs it, into a
// file) beside a plain `COPY (SELECT … FROM mds_events …) TO STDOUT` of the same rows into a file,
// in the same run on the same PostgreSQL; and GET /api/audit/events/ pages of 1,000 at depth
// 1,000,000 (plain, and filtered by type) of `mds start`, one reader after another.
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { performance } from 'node:perf_hooks';
import { to as copyTo } from 'pg-copy-streams';
import { PostgresEventStore } from '#mds/event-store';
import { createPool } from '#mds/platform';
import { median } from './bench-database';
import { importRates, ratioRow } from './bench-service';
import { startServiceProcess } from './service-process';

const EVENTS = Number(process.env.BENCH_AUDIT_EVENTS ?? 1_000_000);
const CUSTOMERS = Number(process.env.BENCH_AUDIT_CUSTOMERS ?? 100_000);
const REPS = Number(process.env.BENCH_REPS ?? 3);
const PAGES = Number(process.env.BENCH_AUDIT_PAGES ?? 200);
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

function cli(args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.resolve(__dirname, '../../bin/mds.js'), ...args], { env: { ...process.env, ...env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'ignore'] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`mds ${args.join(' ')} exited with ${code}`))));
  });
}

async function main() {
  const service = await startServiceProcess();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-audit-bench-'));
  try {
    // The log: customer imports through the API (chunks of 1,000 records, as shops send them), then
    // small events appended through the event store, as settings, tokens and datatargets make them,
    // until it holds EVENTS.
    await importRates(service, '/api/customers/upload/', 'customers', Array.from({ length: CUSTOMERS }, (_, n) => ({ external_id: `A-${n}`, email: `a.${n}@example.com`, first_name: `F${n}`, tags: ['vip'] })), 1000);
    const pool = createPool(service.db.url, { max: 4 });
    const store = new PostgresEventStore(pool);
    let head = await store.headPosition();
    for (let batch = 0; head < EVENTS; batch++) {
      const n = Math.min(1000, EVENTS - head);
      await store.append(`bench-audit-${batch}`, Array.from({ length: n }, (_, i) => ({ id: randomUUID(), type: i % 10 === 0 ? 'BenchMarked' : 'BenchNoted', data: { i, note: `event ${i} of batch ${batch}` }, metadata: { actor: 'users/bench', schema: 1 } })));
      head = await store.headPosition();
    }
    await pool.end();
    const c = service.copyClient;
    // Measured once the service's projections have read the whole log (the streams projection takes every event).
    for (;;) {
      const { rows } = await c.query(`SELECT min(checkpoint)::bigint AS least FROM mds_projections WHERE state = 'live'`);
      if (Number(rows[0].least) >= head) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    await c.query('VACUUM ANALYZE');
    const bytes = Number((await c.query(`SELECT sum(pg_column_size(data) + pg_column_size(metadata))::bigint AS b FROM mds_events`)).rows[0].b);

    // Export of the whole log, ours against COPY of the same columns into a file.
    const env = { DATABASE_URL: service.db.url };
    const ours: number[] = [];
    const plain: number[] = [];
    let exportedBytes = 0;
    for (let rep = 0; rep < REPS; rep++) {
      const out = path.join(dir, 'export.jsonl');
      let t = performance.now();
      await cli(['audit', 'export', '--to', String(head), '--out', out], env);
      ours.push(head / ((performance.now() - t) / 1000));
      exportedBytes = fs.statSync(out).size;
      fs.rmSync(out);
      t = performance.now();
      await pipeline(
        c.query(copyTo(`COPY (SELECT position, stream, type, revision, created_at, data, metadata FROM mds_events WHERE position BETWEEN 1 AND ${head} ORDER BY position) TO STDOUT`)),
        fs.createWriteStream(path.join(dir, 'copy.tsv')),
      );
      plain.push(head / ((performance.now() - t) / 1000));
      fs.rmSync(path.join(dir, 'copy.tsv'));
    }

    // Pages of 1,000 at depth ~1,000,000: the last PAGES pages of the log, in random order, one at a time.
    const page = async (query: string) => {
      const t = performance.now();
      const res = await fetch(`http://127.0.0.1:${service.port}/api/audit/events/${query}`, { headers: service.headers });
      const body = (await res.json()) as { count: number };
      if (res.status !== 200 || body.count === 0) throw new Error(`${query}: ${res.status}`);
      return performance.now() - t;
    };
    const depths = Array.from({ length: PAGES }, (_, i) => head - 1000 - i * 241);
    for (let i = 0; i < 5; i++) await page(`?from=${depths[i]}&limit=1000`); // warm-up
    const plainPages: number[] = [];
    const typed: number[] = [];
    for (const from of depths.sort(() => Math.random() - 0.5)) {
      plainPages.push(await page(`?from=${from}&limit=1000`));
      typed.push(await page(`?from=${Math.max(0, from - 20_000)}&limit=1000&type=BenchMarked`));
    }

    console.log(`### Audit trail\n\n${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${service.db.serverVersion}; a log of ${head.toLocaleString('en')} events (${CUSTOMERS.toLocaleString('en')} customers imported in chunks of 1,000, the rest small events; ${(bytes / 1e6).toFixed(0)} MB of data and metadata as stored), median of ${REPS}.\n`);
    console.log('| scenario | mds (events/s) | baseline (events/s) | ratio |');
    console.log('|---|---:|---:|---:|');
    console.log(ratioRow(`\`mds audit export\` of the whole log into a file (${(exportedBytes / 1e6).toFixed(0)} MB), against COPY (SELECT …) TO STDOUT of the same rows into a file`, median(ours), median(plain)));
    console.log('');
    console.log(`GET /api/audit/events/?limit=1000 at depth ${(head - 1000).toLocaleString('en')} and below (${PAGES} pages, one reader; goal p99 ≤ 50 ms):\n`);
    console.log('| page | p50 (ms) | p99 (ms) |');
    console.log('|---|---:|---:|');
    console.log(`| 1,000 events after \`from\` | ${percentile(plainPages, 50).toFixed(1)} | ${percentile(plainPages, 99).toFixed(1)} |`);
    console.log(`| 1,000 events of one type (1 in 10) after \`from\` | ${percentile(typed, 50).toFixed(1)} | ${percentile(typed, 99).toFixed(1)} |`);
    console.log('');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await service.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
