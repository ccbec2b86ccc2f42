// Scenarios 1, 2, 5 and 8: customer import against `mds start` over HTTP (requests of 1,000 → accepted
// → run completed, readable) next to a raw COPY of the same rows into a scratch table, in the same
// run on the same PostgreSQL; the service's peak RSS; then append-to-readable latency at half the
// sustained end-to-end rate. `npm run bench` (not part of `npm test`).
import * as os from 'node:os';
import { median } from './bench-database';
import { copyRate, csvLine, importRates, ratioRow } from './bench-service';
import { Client } from 'pg';
import { startServiceProcess, type ServiceProcess } from './service-process';

const TOTAL = Number(process.env.BENCH_CUSTOMERS ?? 200_000);
const PER_REQUEST = 1000;
const REPS = Number(process.env.BENCH_REPS ?? 3);
const LATENCY_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 20);
/** Import clients sending at once in the concurrent rows. */
const CLIENTS = 4;
/** A re-sync: the same customers sent again and again (each request a new version of them). */
const RESENT = Math.min(50_000, TOTAL);

function customer(rep: number, n: number) {
  return {
    external_id: `B${rep}-${n}`, email: `b${rep}.${n}@example.com`, phone_number: `+35840${String(n).padStart(7, '0')}`,
    first_name: `First${n}`, last_name: `Last${n}`, city: 'Helsinki', zip_code: '00100', country: 'FI', can_email: n % 2 === 0,
    date_joined: '2024-03-01T10:00:00Z', tags: ['vip', `t${n % 10}`], ACME__tier: 'gold', shop_id: 'web',
  };
}

async function main() {
  const service = await startServiceProcess();
  await service.copyClient.query(`CREATE TABLE scratch_customers (external_id text PRIMARY KEY, email text, phone_number text, first_name text, last_name text,
    city text, zip_code text, country text, can_email boolean, date_joined timestamptz, tags jsonb, extra jsonb, shop_id text)`);
  const accept: number[] = [];
  const readable: number[] = [];
  const acceptConcurrent: number[] = [];
  const readableConcurrent: number[] = [];
  const readableResent: number[] = [];
  const copy: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const rows = Array.from({ length: TOTAL }, (_, n) => customer(rep, n));
    // Baseline: COPY of the same rows (13 columns, 2 jsonb) into an indexed table.
    const lines = rows.map((c) => csvLine([c.external_id, c.email, c.phone_number, c.first_name, c.last_name, c.city, c.zip_code, c.country, c.can_email, c.date_joined, JSON.stringify(c.tags), JSON.stringify({ ACME__tier: c.ACME__tier }), c.shop_id]));
    copy.push(await copyRate(service.copyClient, 'scratch_customers', lines));
    const rates = await importRates(service, '/api/customers/upload/', 'customers', rows, PER_REQUEST);
    accept.push(rates.accepted);
    readable.push(rates.readable);
    // The same number of other customers from CLIENTS clients at once (each sends its next request when answered).
    const concurrent = await importRates(service, '/api/customers/upload/', 'customers', Array.from({ length: TOTAL }, (_, n) => customer(rep + 100, n)), PER_REQUEST, CLIENTS);
    acceptConcurrent.push(concurrent.accepted);
    readableConcurrent.push(concurrent.readable);
    // The first request's customers over and over: behind a lagging projection a page repeats each of them.
    const resent = Array.from({ length: RESENT }, (_, i) => ({ ...customer(rep, i % PER_REQUEST), city: `City${Math.floor(i / PER_REQUEST)}` }));
    readableResent.push((await importRates(service, '/api/customers/upload/', 'customers', resent, PER_REQUEST, CLIENTS)).readable);
  }
  const c = median(copy);
  console.log(`### Customer import (scenarios 1, 2, 8)\n\n${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${service.db.serverVersion}; ${TOTAL.toLocaleString('en')} customers (13 fields) in requests of ${PER_REQUEST} to \`mds start\` (one client sending each request when the previous is answered, then ${CLIENTS} such clients at once), median of ${REPS}; baseline: COPY of the same rows into an indexed table.\n`);
  console.log('| scenario | mds (records/s) | COPY baseline (rows/s) | ratio |');
  console.log('|---|---:|---:|---:|');
  console.log(ratioRow('2. accepted (200 after a durable append), one client', median(accept), c));
  console.log(ratioRow(`2. accepted (200 after a durable append), ${CLIENTS} clients`, median(acceptConcurrent), c));
  console.log(ratioRow('1. end to end (run completed, readable), one client', median(readable), c));
  console.log(ratioRow(`1. end to end (run completed, readable), ${CLIENTS} clients`, median(readableConcurrent), c));
  console.log(ratioRow(`1. end to end, the same ${PER_REQUEST.toLocaleString('en')} customers sent ${RESENT / PER_REQUEST} times (a re-sync), ${CLIENTS} clients`, median(readableResent), c));
  console.log(`\n8. peak RSS of the service process over the ${REPS} runs: ${service.peakRssMiB()} MiB (target < 512 MiB)\n`);
  const sustained = median(readable);
  const lat = await appendToReadable(service, sustained / 2);
  const ms = (x: number) => `${Math.round(x)} ms`;
  console.log(`5. append to readable at half the sustained end-to-end rate (${Math.round(sustained / 2).toLocaleString('en')} customers/s, one request of ${PER_REQUEST} every ${ms((PER_REQUEST / (sustained / 2)) * 1000)}, ${lat.requests} requests over ${LATENCY_SECONDS} s): `
    + `from the 200 answer to the customers read model having the request's last chunk, p50 ${ms(lat.p50)}, p99 ${ms(lat.p99)}, max ${ms(lat.max)} (target p99 ≤ 250 ms); `
    + `from sending the request, p99 ${ms(lat.p99FromSend)}.\n`);
  await service.close();
}

/**
 * Scenario 5: requests paced at `rate` records/s; for each, the time from its 200 answer (the append
 * is durable) until the customers projection's checkpoint passes its last event, as PostgreSQL
 * announces it (`mds_checkpoints`, sent when the projection's page commits), heard on a connection of its own.
 */
async function appendToReadable(service: ServiceProcess, rate: number): Promise<{ requests: number; p50: number; p99: number; max: number; p99FromSend: number }> {
  const listener = new Client({ connectionString: service.db.url });
  await listener.connect();
  const waiting: Array<{ position: number; resolve: (at: bigint) => void }> = [];
  listener.on('notification', (n) => {
    const [name, checkpoint] = (n.payload ?? '').split(':');
    if (name !== 'customers') return;
    const at = process.hrtime.bigint();
    for (let i = waiting.length - 1; i >= 0; i--) if (waiting[i].position <= Number(checkpoint)) waiting.splice(i, 1)[0].resolve(at);
  });
  await listener.query('LISTEN mds_checkpoints');
  const interval = (PER_REQUEST / rate) * 1000;
  const count = Math.max(1, Math.round((LATENCY_SECONDS * 1000) / interval));
  const fromAnswer: number[] = [];
  const fromSend: number[] = [];
  const inFlight: Array<Promise<void>> = [];
  const started = Date.now();
  for (let i = 0; i < count; i++) {
    const wait = started + i * interval - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inFlight.push((async () => {
      const sent = process.hrtime.bigint();
      const rows = Array.from({ length: PER_REQUEST }, (_, n) => customer(1000 + i, n));
      const res = await fetch(`http://127.0.0.1:${service.port}/api/customers/upload/`, { method: 'POST', headers: service.headers, body: JSON.stringify({ customers: rows }) });
      const answered = process.hrtime.bigint();
      const body = (await res.json()) as { run_id: string };
      if (res.status !== 200) throw new Error(`import failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      const { rows: last } = await service.copyClient.query<{ p: string }>('SELECT max(position) AS p FROM mds_events WHERE stream = $1', [`import-${body.run_id}`]);
      const position = Number(last[0].p);
      const readableAt = await new Promise<bigint>((resolve) => {
        waiting.push({ position, resolve });
        // Already applied before we listened for it: its checkpoint is in the table.
        void service.copyClient.query<{ c: string }>(`SELECT checkpoint AS c FROM mds_projections WHERE name = 'customers' AND state = 'live'`).then(({ rows: cp }) => {
          const at = process.hrtime.bigint();
          const idx = waiting.findIndex((w) => w.resolve === resolve);
          if (idx >= 0 && Number(cp[0].c) >= position) waiting.splice(idx, 1)[0].resolve(at);
        });
      });
      fromAnswer.push(Number(readableAt - answered) / 1e6);
      fromSend.push(Number(readableAt - sent) / 1e6);
    })());
  }
  await Promise.all(inFlight);
  await listener.end();
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
  return { requests: count, p50: q(fromAnswer, 50), p99: q(fromAnswer, 99), max: Math.max(...fromAnswer), p99FromSend: q(fromSend, 99) };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
