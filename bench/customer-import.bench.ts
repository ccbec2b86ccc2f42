// Scenarios 1, 2 and 8: customer import against `mds start` over HTTP (requests of 1,000 → accepted
// → run completed, readable) next to a raw COPY of the same rows into a scratch table, in the same
// run on the same PostgreSQL; the service's peak RSS. `npm run bench` (not part of `npm test`).
import * as os from 'node:os';
import { median } from './bench-database';
import { copyRate, csvLine, importRates, ratioRow } from './bench-service';
import { startServiceProcess } from './service-process';

const TOTAL = Number(process.env.BENCH_CUSTOMERS ?? 200_000);
const PER_REQUEST = 1000;
const REPS = Number(process.env.BENCH_REPS ?? 3);

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
  const copy: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const rows = Array.from({ length: TOTAL }, (_, n) => customer(rep, n));
    // Baseline: COPY of the same rows (13 columns, 2 jsonb) into an indexed table.
    const lines = rows.map((c) => csvLine([c.external_id, c.email, c.phone_number, c.first_name, c.last_name, c.city, c.zip_code, c.country, c.can_email, c.date_joined, JSON.stringify(c.tags), JSON.stringify({ ACME__tier: c.ACME__tier }), c.shop_id]));
    copy.push(await copyRate(service.copyClient, 'scratch_customers', lines));
    const rates = await importRates(service, '/api/customers/upload/', 'customers', rows, PER_REQUEST);
    accept.push(rates.accepted);
    readable.push(rates.readable);
  }
  const c = median(copy);
  console.log(`### Customer import (scenarios 1, 2, 8)\n\n${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${service.db.serverVersion}; ${TOTAL.toLocaleString('en')} customers (13 fields) in requests of ${PER_REQUEST} to \`mds start\`, median of ${REPS}; baseline: COPY of the same rows into an indexed table.\n`);
  console.log('| scenario | mds (records/s) | COPY baseline (rows/s) | ratio |');
  console.log('|---|---:|---:|---:|');
  console.log(ratioRow('2. accepted (200 after a durable append)', median(accept), c));
  console.log(ratioRow('1. end to end (run completed, readable)', median(readable), c));
  console.log(`\n8. peak RSS of the service process over the ${REPS} runs: ${service.peakRssMiB()} MiB (target < 512 MiB)\n`);
  await service.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
