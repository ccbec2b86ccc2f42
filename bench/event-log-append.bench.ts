// Event-log append throughput against a plain-INSERT baseline measured in the same run, on the
// same database. `npm run bench` (not part of `npm test`). Median of 3 repetitions.
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { PostgresEventStore, POSTGRES_EVENT_STORE_MIGRATIONS } from '../libs/event-store/src';
import { createPool, runMigrations, type Pool } from '../libs/platform/src';
import { benchDatabase, median } from './bench-database';

const REPS = Number(process.env.BENCH_REPS ?? 3);
const payload = () => ({ email: `${randomUUID()}@example.com`, first_name: 'Ada', last_name: 'Lovelace', can_email: true, tags: ['vip', 'newsletter'] });

async function timed(total: number, run: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return total / (Number(process.hrtime.bigint() - start) / 1e9);
}

async function concurrently(writers: number, calls: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: writers }, async () => {
    while (next < calls) await fn(next++);
  }));
}


interface Scenario {
  name: string;
  events: number;
  ours(pool: Pool, store: PostgresEventStore, rep: number): Promise<number>;
  baseline(pool: Pool, rep: number): Promise<number>;
}

const SCALE = Number(process.env.BENCH_APPEND_SCALE ?? 1);
const ONE = Math.round(20_000 * SCALE);
const BATCHED = Math.round(100_000 * SCALE / 100) * 100;

const scenarios: Scenario[] = [
  {
    name: 'one event per append, 16 concurrent writers, a new stream each',
    events: ONE,
    ours: (_pool, store, rep) => timed(ONE, () => concurrently(16, ONE, (i) => store.append(`one${rep}-${i}`, [{ type: 'CustomerImported', data: payload() }], { expectedRevision: 'no_stream' }))),
    baseline: (pool, rep) =>
      timed(ONE, () =>
        concurrently(16, ONE, (i) => pool.query('INSERT INTO bench_plain (id, stream, type, data) VALUES ($1, $2, $3, $4)', [randomUUID(), `one${rep}-${i}`, 'CustomerImported', JSON.stringify(payload())])),
      ),
  },
  {
    name: '100 events per append, 4 concurrent writers',
    events: BATCHED,
    ours: (_pool, store, rep) =>
      timed(BATCHED, () => concurrently(4, BATCHED / 100, (i) => store.append(`batch${rep}-${i}`, Array.from({ length: 100 }, () => ({ type: 'CustomerImported', data: payload() }))))),
    baseline: (pool, rep) =>
      timed(BATCHED, () =>
        concurrently(4, BATCHED / 100, (i) =>
          pool.query(
            `INSERT INTO bench_plain (id, stream, type, data)
             SELECT gen_random_uuid(), $1, 'CustomerImported', x FROM jsonb_array_elements($2::jsonb) x`,
            [`batch${rep}-${i}`, JSON.stringify(Array.from({ length: 100 }, payload))],
          ),
        ),
      ),
  },
];

async function main() {
  const db = await benchDatabase();
  const pool = createPool(db.url, { max: 16 });
  try {
    await runMigrations(pool, [POSTGRES_EVENT_STORE_MIGRATIONS]);
    await pool.query(`CREATE TABLE bench_plain (position bigserial PRIMARY KEY, id uuid NOT NULL UNIQUE, stream text NOT NULL, type text NOT NULL, data jsonb NOT NULL)`);
    const store = new PostgresEventStore(pool);
    console.log(`### Event-log append, Postgres adapter (scenario 3)\n\n${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${db.serverVersion}, median of ${REPS}; baseline: plain INSERTs of the same rows (the Emmett comparison the scenario asks for is not measured yet).\n`);
    console.log('| scenario | mds append (events/s) | plain INSERT baseline (rows/s) | ratio |');
    console.log('|---|---:|---:|---:|');
    for (const s of scenarios) {
      const ours: number[] = [];
      const base: number[] = [];
      for (let rep = 0; rep < REPS; rep++) {
        base.push(await s.baseline(pool, rep));
        ours.push(await s.ours(pool, store, rep));
      }
      const o = median(ours);
      const b = median(base);
      console.log(`| ${s.name} (${s.events.toLocaleString('en')} events) | ${Math.round(o).toLocaleString('en')} | ${Math.round(b).toLocaleString('en')} | ${(o / b).toFixed(2)} |`);
    }
  } finally {
    await pool.end();
    await db.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
