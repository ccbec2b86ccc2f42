// Customer event and sales imports end to end over HTTP (requests of 1,000 rows → accepted →
// readable) next to a raw COPY of the same rows into scratch tables, in the same run on the same
// PostgreSQL. `npm run bench` (not part of `npm test`). Median of 3 repetitions.
import * as os from 'node:os';
import { median } from './bench-database';
import { copyRate, csvLine, importRates, ratioRow } from './bench-service';
import { startServiceProcess } from './service-process';

const TOTAL = Number(process.env.BENCH_ACTIVITY ?? 50_000);
const PER_REQUEST = 1000;
const REPS = Number(process.env.BENCH_REPS ?? 3);
const TYPES = ['BROWSE', 'BASKET_ADD', 'BROWSE', 'ORDER_SHIPPED', 'BROWSE'];

function event(rep: number, n: number) {
  const type = TYPES[n % TYPES.length];
  return {
    type, date: '2024-03-01T10:00:00Z', customer_id: `B${rep}-${n % 5000}`, email: `b${rep}.${n % 5000}@example.com`,
    ...(type === 'ORDER_SHIPPED' ? { tracking_number: `JJD${n}`, sale_id: `S${n}` } : { product_id: `P${n % 500}`, path: `/p/${n % 500}` }),
    utm_campaign: `spring-${n % 7}`, ACME__channel: 'web',
  };
}

/** Five rows per transaction: four items, the header row last (as the Magento plugin sends them). */
function saleRow(rep: number, n: number) {
  const t = Math.floor(n / 5);
  const id = `S${rep}-${t}`;
  if (n % 5 === 4) return { sale_external_id: id, sale_date: '2024-03-01T10:00:00Z', sale_customer_id: `B${rep}-${t % 5000}`, sale_discount: -100, sale_state: 'complete', ACME__channel: 'web' };
  return { sale_external_id: id, external_id: `${id}-${n % 5}`, product_id: `P${n % 500}`, quantity: 1 + (n % 3), unit_price: 1000 + (n % 500), discount: -10 };
}

async function main() {
  const service = await startServiceProcess();
  await service.copyClient.query(`CREATE TABLE scratch_events (id bigint PRIMARY KEY, type text, date timestamptz, customer_id text, email text, data jsonb)`);
  await service.copyClient.query(`CREATE TABLE scratch_sale_rows (sale_external_id text, row_id text, product_id text, quantity numeric, unit_price bigint, discount bigint, header jsonb)`);
  const results: Record<string, { accept: number[]; readable: number[]; copy: number[] }> = { events: { accept: [], readable: [], copy: [] }, sales: { accept: [], readable: [], copy: [] } };
  for (let rep = 0; rep < REPS; rep++) {
    const events = Array.from({ length: TOTAL }, (_, n) => event(rep, n));
    results.events.copy.push(await copyRate(service.copyClient, 'scratch_events', events.map((e, n) => csvLine([rep * TOTAL + n, e.type, e.date, e.customer_id, e.email, JSON.stringify(e)]))));
    const e = await importRates(service, '/api/events/upload/', 'events', events, PER_REQUEST);
    results.events.accept.push(e.accepted);
    results.events.readable.push(e.readable);

    const rows = Array.from({ length: TOTAL }, (_, n) => saleRow(rep, n));
    results.sales.copy.push(await copyRate(service.copyClient, 'scratch_sale_rows', rows.map((r) => csvLine([r.sale_external_id, r.external_id ?? '', r.product_id ?? '', r.quantity ?? 0, r.unit_price ?? 0, r.discount ?? 0, JSON.stringify(r)]))));
    const s = await importRates(service, '/api/sales/upload/', 'sales', rows, PER_REQUEST);
    results.sales.accept.push(s.accepted);
    results.sales.readable.push(s.readable);
  }
  console.log(`### Customer event and sales imports\n\n${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${service.db.serverVersion}; ${TOTAL.toLocaleString('en')} records in requests of ${PER_REQUEST} to \`mds start\`, median of ${REPS}; baseline: COPY of the same rows.\n`);
  console.log('| scenario | mds (records/s) | COPY baseline (rows/s) | ratio |');
  console.log('|---|---:|---:|---:|');
  for (const [name, r] of Object.entries(results)) {
    console.log(ratioRow(`${name}: accepted (200 after a durable append)`, median(r.accept), median(r.copy)));
    console.log(ratioRow(`${name}: end to end (run completed, readable)`, median(r.readable), median(r.copy)));
  }
  console.log('');
  await service.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
