// Customer import end to end over HTTP (requests of 1,000 → accepted → readable) next to a raw
// COPY of the same rows into a scratch table, measured in the same run on the same PostgreSQL.
// `npm run bench` (not part of `npm test`). Median of 3 repetitions.
import * as os from 'node:os';
import { customersProjection } from '../projections';
import { median } from './bench-database';
import { copyRate, csvLine, importRates, ratioRow, startBenchService } from './bench-service';

const TOTAL = Number(process.env.BENCH_CUSTOMERS ?? 100_000);
const PER_REQUEST = 1000;
const REPS = 3;

function customer(rep: number, n: number) {
  return {
    external_id: `B${rep}-${n}`, email: `b${rep}.${n}@example.com`, phone_number: `+35840${String(n).padStart(7, '0')}`,
    first_name: `First${n}`, last_name: `Last${n}`, city: 'Helsinki', zip_code: '00100', country: 'FI', can_email: n % 2 === 0,
    date_joined: '2024-03-01T10:00:00Z', tags: ['vip', `t${n % 10}`], ACME__tier: 'gold', shop_id: 'web',
  };
}

async function main() {
  const service = await startBenchService([customersProjection]);
  await service.copyClient.query(`CREATE TABLE scratch_customers (external_id text PRIMARY KEY, email text, phone_number text, first_name text, last_name text,
    city text, zip_code text, country text, can_email boolean, date_joined timestamptz, tags jsonb, extra jsonb, shop_id text)`);
  const accept: number[] = [];
  const readable: number[] = [];
  const copy: number[] = [];
  let peakRss = 0;
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  for (let rep = 0; rep < REPS; rep++) {
    const rows = Array.from({ length: TOTAL }, (_, n) => customer(rep, n));
    // Baseline: COPY of the same rows (13 columns, 2 jsonb) into an indexed table.
    const lines = rows.map((c) => csvLine([c.external_id, c.email, c.phone_number, c.first_name, c.last_name, c.city, c.zip_code, c.country, c.can_email, c.date_joined, JSON.stringify(c.tags), JSON.stringify({ ACME__tier: c.ACME__tier }), c.shop_id]));
    copy.push(await copyRate(service.copyClient, 'scratch_customers', lines));
    const rates = await importRates(service, '/api/customers/upload/', 'customers', rows, PER_REQUEST);
    accept.push(rates.accepted);
    readable.push(rates.readable);
  }
  clearInterval(rssTimer);
  const c = median(copy);
  console.log(`customer import benchmark — ${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${service.db.serverVersion}, ${TOTAL.toLocaleString('en')} customers in requests of ${PER_REQUEST}, median of ${REPS}`);
  console.log('| scenario | mds (records/s) | COPY baseline (rows/s) | ratio |');
  console.log('|---|---:|---:|---:|');
  console.log(ratioRow('accepted (200 after a durable append)', median(accept), c));
  console.log(ratioRow('end to end (run completed, readable)', median(readable), c));
  console.log(`peak RSS of the process (service and load generator together): ${Math.round(peakRss / 1024 / 1024)} MiB`);
  await service.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
