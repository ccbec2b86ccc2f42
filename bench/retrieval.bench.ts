// Scenario 7: retrieval of `mds start` over N customers, beside baselines doing the same database work
// in the simplest way, in the same run, on the same PostgreSQL and read model:
// - pages of 100 (GET /api/data/customers/?limit=100), loaded by autocannon in a separate process: p99
//   latency at a fixed 1,000 requests/s, and saturation against a bare Fastify route (in this process)
//   running the same page query as a prepared statement and sending the rows' JSON text;
// - the bulk read readers of this API actually do (limit=10,000 pages following next_url, every
//   customer), records/s against `COPY (SELECT <the same JSON>) TO STDOUT`, and the service's memory
//   while four readers do it at once;
// - the whole-datatype export (GET /api/export/customers/: the same records as NDJSON in one answer),
//   plain and gzip, records/s against that paging (issue [21]: at least as fast per record).
import * as http from 'node:http';
import * as os from 'node:os';
import { createGunzip } from 'node:zlib';
import Fastify from 'fastify';
import { Pool } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { customerViewSql, listCustomers } from '#mds/projections';
import { median } from './bench-database';
import { autocannon, importRates, type Load } from './bench-service';
import { startServiceProcess } from './service-process';

const TOTAL = Number(process.env.BENCH_RETRIEVAL_CUSTOMERS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const REPS = Number(process.env.BENCH_REPS ?? 3);

/**
 * Every customer, following next_url from a first page of `limit`; returns records/s. Each page is read
 * whole as text and its count and next_url taken from its end, without parsing the customers: the COPY
 * reader beside it does not parse them either, and both share the service's two cores.
 */
async function bulkRead(base: string, headers: Record<string, string>, limit: number): Promise<{ perSecond: number; records: number }> {
  const t = process.hrtime.bigint();
  let records = 0;
  for (let next: string | null = `/api/data/customers/?limit=${limit}`; next; ) {
    const res = await fetch(`${base}${next}`, { headers });
    const text = await res.text();
    const tail = /"count":(\d+),"next_url":(null|"[^"]*")}$/.exec(text);
    if (res.status !== 200 || !tail) throw new Error(`bulk read: ${res.status} ${text.slice(-200)}`);
    records += Number(tail[1]);
    next = JSON.parse(tail[2]) as string | null;
  }
  return { perSecond: records / (Number(process.hrtime.bigint() - t) / 1e9), records };
}

/**
 * Every customer in one export, its lines counted as they arrive (not parsed, as bulkRead does not
 * parse); with gzip asked for and unzipped here. Returns records/s and the bytes that came over the wire.
 */
function exportRead(base: string, headers: Record<string, string>, gzip: boolean): Promise<{ perSecond: number; records: number; wireBytes: number }> {
  const t = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/api/export/customers/`, { headers: { ...headers, 'accept-encoding': gzip ? 'gzip' : 'identity' } }, (res) => {
      if (res.statusCode !== 200 || (res.headers['content-encoding'] === 'gzip') !== gzip) return reject(new Error(`export: ${res.statusCode} ${res.headers['content-encoding']}`));
      let records = 0;
      let wireBytes = 0;
      res.on('data', (chunk: Buffer) => (wireBytes += chunk.length));
      const body = gzip ? res.pipe(createGunzip()) : res;
      body.on('data', (chunk: Buffer) => {
        for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) records++;
      });
      body.on('end', () => resolve({ perSecond: records / (Number(process.hrtime.bigint() - t) / 1e9), records, wireBytes }));
      body.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function main() {
  const service = await startServiceProcess();
  const customer = (n: number) => ({ external_id: `G-${n}`, email: `g.${n}@example.com`, first_name: `First${n}`, last_name: `Last${n}`, city: 'Helsinki', tags: ['vip'], ACME__tier: 'gold' });
  for (let i = 0; i < TOTAL; i += 100_000) {
    await importRates(service, '/api/customers/upload/', 'customers', Array.from({ length: Math.min(100_000, TOTAL - i) }, (_, j) => customer(i + j)), 1000);
  }
  await service.copyClient.query('VACUUM ANALYZE');
  // The first audit checkpoint after the import hashes every chunk of it in the background (seconds of
  // the service's CPU and garbage collection, every 60 s until done): measured in the steady state
  // after it, its effect is in FINDINGS.
  const head = Number((await service.copyClient.query<{ p: string }>(`SELECT max(position) AS p FROM mds_events`)).rows[0].p);
  const settling = Date.now();
  for (;;) {
    const { rows } = await service.copyClient.query<{ n: number }>(`SELECT count(*)::int AS n FROM mds_events WHERE stream = 'audit-chain' AND (data->>'position')::bigint >= $1`, [head]);
    if (rows[0].n > 0 || Date.now() - settling > 180_000) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const auditSettled = (Date.now() - settling) / 1000;
  const base = `http://127.0.0.1:${service.port}`;
  const url = `${base}/api/data/customers/?limit=100`;

  // The baseline route: the same read model, the same page query (a prepared statement), its JSON text sent.
  const pool = new Pool({ connectionString: service.db.url, max: 10 });
  const bare = Fastify({ logger: false });
  bare.get('/api/data/customers/', async (req, reply) => {
    const limit = Number((req.query as { limit?: string }).limit ?? 100);
    const page = await listCustomers(pool, { limit });
    return reply.type('application/json; charset=utf-8').send(`{"customers":[${page.json}],"count":${page.count},"next_url":null}`);
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/api/data/customers/?limit=100`;

  // A warm-up at the same rate first, not measured: the first seconds after the load compile the route
  // and fill the caches (p99 31 against 19 ms in two back-to-back runs over 300,000 customers).
  await autocannon(url, service.headers, { seconds: 5, rate: 1000, connections: 20 });
  // Then REPS rounds, each the paced run and both saturation runs (which of them first alternates):
  // the table gives the medians.
  const rounds: Array<{ atRate: Load; saturated: Load; baseline: Load }> = [];
  for (let rep = 0; rep < REPS; rep++) {
    const atRate = await autocannon(url, service.headers, { seconds: SECONDS, rate: 1000, connections: 20 });
    const pair = [() => autocannon(url, service.headers, { seconds: SECONDS, connections: 20 }), () => autocannon(bareUrl, {}, { seconds: SECONDS, connections: 20 })];
    const [first, second] = rep % 2 === 0 ? pair : [pair[1], pair[0]];
    const a = await first();
    const b = await second();
    rounds.push({ atRate, ...(rep % 2 === 0 ? { saturated: a, baseline: b } : { saturated: b, baseline: a }) });
  }
  const p99 = median(rounds.map((r) => r.atRate.p99));
  const saturatedRate = median(rounds.map((r) => r.saturated.average));
  const baselineRate = median(rounds.map((r) => r.baseline.average));
  const errors = rounds.reduce((n, r) => n + r.atRate.errors + r.saturated.errors, 0);
  const non2xx = rounds.reduce((n, r) => n + r.atRate.non2xx + r.saturated.non2xx, 0);

  // Bulk: one reader and the COPY of the same JSON, taking turns (the first read of the table after
  // the load runs finds less of it cached: each side's best of three), then four readers at once (memory).
  const copyRead = async (): Promise<{ perSecond: number; records: number }> => {
    const t = process.hrtime.bigint();
    let records = 0;
    const stream = service.copyClient.query(
      copyTo(`COPY (SELECT ${customerViewSql('c')} FROM customers c WHERE NOT is_deleted ORDER BY customer_id) TO STDOUT`),
    );
    for await (const chunk of stream) for (const byte of chunk as Buffer) if (byte === 0x0a) records++;
    return { perSecond: records / (Number(process.hrtime.bigint() - t) / 1e9), records };
  };
  const bulks: Array<{ perSecond: number; records: number }> = [];
  const copies: Array<{ perSecond: number; records: number }> = [];
  for (let turn = 0; turn < 3; turn++) {
    bulks.push(await bulkRead(base, service.headers, 10_000));
    copies.push(await copyRead());
  }
  const bulk = bulks.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
  const copyRate = Math.max(...copies.map((c) => c.perSecond));
  const copied = copies[0].records;
  // The peak of the four readers alone (the import and the load runs before them have their own).
  const lifetimePeak = service.peakRssMiB();
  service.resetPeakRss();
  const four = await Promise.all(Array.from({ length: 4 }, () => bulkRead(base, service.headers, 10_000)));
  const peak = service.peakRssMiB();
  // The export beside the paging it replaces: paging again right before each, so both meet the same cache.
  const paged = await bulkRead(base, service.headers, 10_000);
  const exported = await exportRead(base, service.headers, false);
  const pagedAgain = await bulkRead(base, service.headers, 10_000);
  const zipped = await exportRead(base, service.headers, true);
  const pagedRate = Math.max(paged.perSecond, pagedAgain.perSecond);

  const f = (x: number) => Math.round(x).toLocaleString('en');
  console.log(
    `### Retrieval (scenario 7) and bulk reads\n\n${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${service.db.serverVersion}; \`mds start\` over ${TOTAL.toLocaleString('en')} customers; autocannon in a separate process, ${SECONDS} s per run (after 5 s at 1,000 requests/s, not measured), 20 connections; pages of 100: medians of ${REPS} rounds (which saturation run goes first alternates). Baselines in the same run on the same read model: a bare Fastify route (this process) running the same page query as a prepared statement and sending its JSON text; COPY of the same JSON to STDOUT.\n`,
  );
  console.log('| measure | mds | baseline | ratio / target |');
  console.log('|---|---:|---:|---:|');
  console.log(`| pages of 100: p99 latency at 1,000 requests/s (ms) | ${p99} | | target ≤ 25 |`);
  console.log(`| pages of 100: saturation (requests/s) | ${f(saturatedRate)} | ${f(baselineRate)} | ${(saturatedRate / baselineRate).toFixed(2)} (floor 0.70) |`);
  console.log(`| bulk read, pages of 10,000 following next_url (records/s) | ${f(bulk.perSecond)} | ${f(copyRate)} | ${(bulk.perSecond / copyRate).toFixed(2)} (floor 0.50, aim 0.80) |`);
  console.log(`| four bulk readers at once (records/s each; service peak RSS while they read) | ${f(Math.min(...four.map((r) => r.perSecond)))} | | peak RSS ${peak} MiB (< 512) |`);
  console.log(`| export, NDJSON in one answer, vs pages of 10,000 following next_url (records/s) | ${f(exported.perSecond)} | ${f(pagedRate)} | ${(exported.perSecond / pagedRate).toFixed(2)} (floor 1.00) |`);
  console.log(`| export with gzip, unzipped by the reader, vs the same pages (records/s) | ${f(zipped.perSecond)} | ${f(pagedRate)} | ${(zipped.perSecond / pagedRate).toFixed(2)} (wire: ${(zipped.wireBytes / exported.wireBytes).toFixed(2)} of plain) |`);
  console.log(`\npages of 100, each round (p99 at 1,000/s; mds / bare route at saturation): ${rounds.map((r) => `${r.atRate.p99} ms; ${f(r.saturated.average)} / ${f(r.baseline.average)}`).join(', ')}. errors / non-2xx: ${errors} / ${non2xx}; every bulk read saw ${bulk.records.toLocaleString('en')} customers (COPY: ${copied.toLocaleString('en')}; exports: ${exported.records.toLocaleString('en')} and ${zipped.records.toLocaleString('en')}); paging baseline: the faster of the two paged reads around the exports (${f(paged.perSecond)}, ${f(pagedAgain.perSecond)}); bulk reads ${bulks.map((b) => f(b.perSecond)).join(', ')} and COPY ${copies.map((c) => f(c.perSecond)).join(', ')}, taking turns; the service's peak RSS over its whole run (the import and the load runs included): ${lifetimePeak} MiB; measured ${auditSettled.toFixed(0)} s after the import, once the audit chain was checkpointed past it\n`);
  await bare.close();
  await pool.end();
  await service.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
