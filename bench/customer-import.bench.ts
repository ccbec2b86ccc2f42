// Customer import end to end over HTTP (requests of 1,000 → accepted → readable) next to a raw
// COPY of the same rows into a scratch table, measured in the same run on the same PostgreSQL.
// `npm run bench` (not part of `npm test`). Median of 3 repetitions.
import * as os from 'node:os';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { createApiApp } from '../apps/api/src/api.app';
import { CreateUserCommand, CreateUserHandler, mintToken } from '../libs/access/src';
import { loadConfig } from '../libs/platform/src';
import { openRuntime } from '../libs/runtime/src';
import { accessProjection, customersProjection, Projector, waitForProjection } from '../projections';
import { benchDatabase, median } from './bench-database';

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
  const db = await benchDatabase();
  const dbUrl = db.url;
  const dataDir = db.dataDir;
  const config = loadConfig({ DATABASE_URL: dbUrl, LOG_LEVEL: 'warn', MDS_RATE_LIMIT_PER_MINUTE: '0', MDS_SECRET_KEY: 'c'.repeat(64), MDS_PASSWORD_HASH_COST: '10', MDS_DATA_DIR: dataDir });
  const runtime = await openRuntime(config, { projections: [accessProjection, customersProjection] });
  const projector = new Projector(runtime.runnerDeps(), runtime.projections);
  await projector.start();
  const app = await createApiApp(runtime);
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  const user = await new CreateUserHandler(runtime.store, runtime.accessDeps).execute(new CreateUserCommand('bench', 'bench password', ['admin']));
  const minted = await mintToken(runtime.store, { ownerId: `users/${user.user_id}`, name: 'bench', createdBy: 'bench', scopes: [], transferredRoles: [], now: new Date().toISOString() });
  await waitForProjection(runtime.pool, 'access', minted.position);
  const headers = { authorization: `Bearer ${minted.access_token.token}`, 'content-type': 'application/json' };

  const copyClient = new Client({ connectionString: dbUrl });
  await copyClient.connect();
  await copyClient.query(`CREATE TABLE scratch_customers (external_id text PRIMARY KEY, email text, phone_number text, first_name text, last_name text,
    city text, zip_code text, country text, can_email boolean, date_joined timestamptz, tags jsonb, extra jsonb, shop_id text)`);
  const csv = (v: unknown) => `"${String(v).replace(/"/g, '""')}"`;

  const accept: number[] = [];
  const readable: number[] = [];
  const copy: number[] = [];
  let peakRss = 0;
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  for (let rep = 0; rep < REPS; rep++) {
    const rows = Array.from({ length: TOTAL }, (_, n) => customer(rep, n));
    // Baseline: COPY of the same rows (13 columns, 2 jsonb) into an indexed table.
    const lines = rows.map((c) => [c.external_id, c.email, c.phone_number, c.first_name, c.last_name, c.city, c.zip_code, c.country, c.can_email, c.date_joined, JSON.stringify(c.tags), JSON.stringify({ ACME__tier: c.ACME__tier }), c.shop_id].map(csv).join(',') + '\n');
    let t = process.hrtime.bigint();
    await pipeline(Readable.from(lines), copyClient.query(copyFrom('COPY scratch_customers FROM STDIN WITH (FORMAT csv)')));
    copy.push(TOTAL / (Number(process.hrtime.bigint() - t) / 1e9));
    await copyClient.query('TRUNCATE scratch_customers');

    t = process.hrtime.bigint();
    let lastRun = '';
    for (let i = 0; i < TOTAL; i += PER_REQUEST) {
      const res = await fetch(`http://127.0.0.1:${port}/api/customers/upload/`, { method: 'POST', headers, body: JSON.stringify({ customers: rows.slice(i, i + PER_REQUEST) }) });
      const body = (await res.json()) as { run_id: string; accepted: number };
      if (res.status !== 200 || body.accepted !== Math.min(PER_REQUEST, TOTAL - i)) throw new Error(`import failed: ${res.status} ${JSON.stringify(body)}`);
      lastRun = body.run_id;
    }
    accept.push(TOTAL / (Number(process.hrtime.bigint() - t) / 1e9));
    for (;;) {
      const res = await fetch(`http://127.0.0.1:${port}/api/runs/${lastRun}/`, { headers });
      if (((await res.json()) as { state: string }).state === 'completed') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    readable.push(TOTAL / (Number(process.hrtime.bigint() - t) / 1e9));
  }
  clearInterval(rssTimer);
  const c = median(copy);
  console.log(`customer import benchmark — ${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${db.serverVersion}, ${TOTAL.toLocaleString('en')} customers in requests of ${PER_REQUEST}, median of ${REPS}`);
  console.log('| scenario | mds (records/s) | COPY baseline (rows/s) | ratio |');
  console.log('|---|---:|---:|---:|');
  console.log(`| accepted (200 after a durable append) | ${Math.round(median(accept)).toLocaleString('en')} | ${Math.round(c).toLocaleString('en')} | ${(median(accept) / c).toFixed(2)} |`);
  console.log(`| end to end (run completed, readable) | ${Math.round(median(readable)).toLocaleString('en')} | ${Math.round(c).toLocaleString('en')} | ${(median(readable) / c).toFixed(2)} |`);
  console.log(`peak RSS of the process (service and load generator together): ${Math.round(peakRss / 1024 / 1024)} MiB`);

  await copyClient.end();
  await app.close();
  await projector.stop();
  await runtime.close();
  await db.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
