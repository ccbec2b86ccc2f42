// Datasync datatargets: what making a message of every customer change costs. 10,000 customers
// (BENCH_DATASYNC_CUSTOMERS) imported in requests of 1,000 by one client into `mds start`, with and
// without a datasync datatarget of customers; then the same 1,000 customers sent again 10 times (a
// re-sync). Timed from the first request to the customers read model having the last run (readable)
// and to the datasync projection having passed it (messages made). `npm run bench`.
import * as os from 'node:os';
import { median } from './bench-database';
import { importRates } from './bench-service';
import { startServiceProcess, type ServiceProcess } from './service-process';

const TOTAL = Number(process.env.BENCH_DATASYNC_CUSTOMERS ?? 10_000);
const PER_REQUEST = 1000;
const REPS = Number(process.env.BENCH_REPS ?? 3);

const customer = (tag: string, n: number) => ({
  external_id: `D${tag}-${n}`, email: `d${tag}.${n}@example.com`, phone_number: `+35841${String(n).padStart(7, '0')}`, first_name: `First${n}`, last_name: `Last${n}`,
  city: 'Helsinki', zip_code: '00100', country: 'FI', can_email: n % 2 === 0, date_joined: '2024-03-01T10:00:00Z', tags: ['vip', `t${n % 10}`], shop_id: 'web',
});

/** Seconds from `start` until the live generation of `projection` has passed the log's head. */
async function passedHead(service: ServiceProcess, projection: string, start: bigint): Promise<number> {
  const { rows } = await service.copyClient.query<{ head: string }>('SELECT position AS head FROM mds_log_head');
  for (;;) {
    const { rows: p } = await service.copyClient.query<{ checkpoint: string }>(`SELECT checkpoint FROM mds_projections WHERE name = $1 AND state = 'live'`, [projection]);
    if (Number(p[0]?.checkpoint ?? 0) >= Number(rows[0].head)) return Number(process.hrtime.bigint() - start) / 1e9;
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Records/s to readable, and to every datasync message made. */
async function measure(service: ServiceProcess, records: unknown[]): Promise<{ readable: number; messages: number }> {
  const start = process.hrtime.bigint();
  const { readable } = await importRates(service, '/api/customers/upload/', 'customers', records, PER_REQUEST);
  const seconds = await passedHead(service, 'datasync', start);
  return { readable, messages: records.length / seconds };
}

async function main() {
  const service = await startServiceProcess();
  const results: Record<string, Array<{ readable: number; messages: number }>> = { without: [], with: [], resync: [] };
  let target: string | undefined;
  for (let rep = 0; rep < REPS; rep++) {
    results.without.push(await measure(service, Array.from({ length: TOTAL }, (_, n) => customer(`w${rep}`, n))));
    const res = await fetch(`http://127.0.0.1:${service.port}/api/datatargets/`, { method: 'POST', headers: service.headers, body: JSON.stringify({ datatarget_type: 'datasync', datatype: 'customers', name: `crm ${rep}` }) });
    if (res.status !== 200) throw new Error(`datatarget: ${res.status} ${await res.text()}`);
    target = ((await res.json()) as { datatarget: { id: string } }).datatarget.id;
    results.with.push(await measure(service, Array.from({ length: TOTAL }, (_, n) => customer(`s${rep}`, n))));
    results.resync.push(await measure(service, Array.from({ length: TOTAL }, (_, i) => ({ ...customer(`s${rep}`, i % PER_REQUEST), city: `City${Math.floor(i / PER_REQUEST)}` }))));
    await fetch(`http://127.0.0.1:${service.port}/api/datatargets/${target}/`, { method: 'DELETE', headers: service.headers });
  }
  const f = (xs: number[]) => Math.round(median(xs)).toLocaleString('en');
  console.log(`### Datasync datatargets\n\n${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${service.db.serverVersion}; ${TOTAL.toLocaleString('en')} customers in requests of ${PER_REQUEST} to \`mds start\`, one client, median of ${REPS}.\n`);
  console.log('| import | readable (records/s) | messages made (records/s) |');
  console.log('|---|---:|---:|');
  console.log(`| no datasync datatarget | ${f(results.without.map((r) => r.readable))} | ${f(results.without.map((r) => r.messages))} |`);
  console.log(`| a datasync datatarget of customers, new customers | ${f(results.with.map((r) => r.readable))} | ${f(results.with.map((r) => r.messages))} |`);
  console.log(`| the same, ${PER_REQUEST.toLocaleString('en')} customers sent ${TOTAL / PER_REQUEST} times (a re-sync) | ${f(results.resync.map((r) => r.readable))} | ${f(results.resync.map((r) => r.messages))} |`);
  await service.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
