// Forgetting: what an erasure costs on top of the import that asks for it. A database of customers,
// their events and sales (each naming the customer's e-mail), then customers forgotten one request at
// a time (1 and 100 per request), each next to the same request changing a first name instead (the
// baseline: the same import path, no erasure), alternating; from sending the request to its run being
// completed (the customers projection applied it, and with it the erasure). `npm run bench`.
import * as os from 'node:os';
import { median } from './bench-database';
import { importRates } from './bench-service';
import { startServiceProcess, type ServiceProcess } from './service-process';

const CUSTOMERS = Number(process.env.BENCH_FORGET_CUSTOMERS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_REPS ?? 3) * 2;

const email = (n: number) => `person${n}@example.com`;

async function completedAfter(service: ServiceProcess, records: unknown[]): Promise<number> {
  const t = process.hrtime.bigint();
  const res = await fetch(`http://127.0.0.1:${service.port}/api/customers/upload/`, { method: 'POST', headers: service.headers, body: JSON.stringify({ customers: records }) });
  const body = (await res.json()) as { run_id: string; rejected: number };
  if (res.status !== 200 || body.rejected !== 0) throw new Error(`import failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  for (;;) {
    const run = await fetch(`http://127.0.0.1:${service.port}/api/runs/${body.run_id}/`, { headers: service.headers });
    if (((await run.json()) as { state: string }).state === 'completed') break;
    await new Promise((r) => setTimeout(r, 2));
  }
  return Number(process.hrtime.bigint() - t) / 1e6;
}

async function main() {
  const service = await startServiceProcess();
  const customers = Array.from({ length: CUSTOMERS }, (_, n) => ({ external_id: `F${n}`, email: email(n), phone_number: `+35840${String(n).padStart(7, '0')}`, first_name: `First${n}`, last_name: `Last${n}`, city: 'Oulu' }));
  await importRates(service, '/api/customers/upload/', 'customers', customers, 1000, 2);
  const events = Array.from({ length: CUSTOMERS }, (_, n) => ({ type: 'BROWSE', date: '2026-03-01T10:00:00Z', email: email(n), path: `/p/${n % 500}` }));
  await importRates(service, '/api/events/upload/', 'events', events, 1000, 2);
  const sales = Array.from({ length: CUSTOMERS / 2 }, (_, n) => ({ sale_external_id: `S${n}`, sale_date: '2026-03-02T10:00:00Z', sale_email: email(n * 2), product_id: 'P1', quantity: 1, unit_price: 1000 }));
  await importRates(service, '/api/sales/upload/', 'sales', sales, 1000, 2);
  const results: Record<string, number[]> = {};
  const add = (k: string, ms: number) => (results[k] ??= []).push(ms);
  let next = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of [1, 100]) {
      const forget = Array.from({ length: size }, () => ({ email: email(next++), is_forgotten: true }));
      const change = Array.from({ length: size }, () => ({ email: email(next++), first_name: 'Changed' }));
      // Alternating which goes first, so neither always meets a warmer cache.
      if (round % 2 === 0) {
        add(`forget ${size}`, await completedAfter(service, forget));
        add(`change ${size}`, await completedAfter(service, change));
      } else {
        add(`change ${size}`, await completedAfter(service, change));
        add(`forget ${size}`, await completedAfter(service, forget));
      }
    }
  }
  const ms = (xs: number[]) => `${Math.round(median(xs))} ms`;
  console.log(`### Forgetting\n\n${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${service.db.serverVersion}; ${CUSTOMERS.toLocaleString('en')} customers, as many events and half as many sales naming their e-mails; one request at a time, from sending it to its run completed, median of ${ROUNDS}; baseline: the same request changing a first name instead of forgetting.\n`);
  console.log('| customers per request | forget | baseline (change) | ratio |');
  console.log('|---|---:|---:|---:|');
  for (const size of [1, 100]) console.log(`| ${size} | ${ms(results[`forget ${size}`])} | ${ms(results[`change ${size}`])} | ${(median(results[`forget ${size}`]) / median(results[`change ${size}`])).toFixed(1)} |`);
  console.log('\nAn erasure reads every event, sale and campaign-event list once per page that forgets (the lists naming an e-mail or phone are found by scanning them).\n');
  await service.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
