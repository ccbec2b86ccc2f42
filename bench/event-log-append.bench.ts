// Scenario 3: event-log append throughput next to the Emmett PostgreSQL event store
// (@event-driven-io/emmett-postgresql, a devDependency of the benchmark only) and plain INSERTs,
// measured in the same run on the same database. `npm run bench` (not part of `npm test`). Median of 3 repetitions.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PostgresEventStore, POSTGRES_EVENT_STORE_MIGRATIONS } from '#mds/event-store';
import { createPool, runMigrations, type Pool } from '#mds/platform';
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


/** The part of Emmett's PostgreSQL event store the benchmark uses (its own pool, its own schema). */
interface EmmettStore {
  appendToStream(stream: string, events: Array<{ type: string; data: Record<string, unknown> }>): Promise<unknown>;
  close(): Promise<void>;
}

/** Emmett on a pool like ours (16 connections), which the benchmark closes itself. */
function emmettStore(url: string, pool: Pool): EmmettStore {
  // Loaded at run time: a devDependency of the benchmark only.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const emmett = require('@event-driven-io/emmett-postgresql') as {
    getPostgreSQLEventStore(connectionString: string, options: { connectionOptions: { pooled: true; pool: Pool } }): EmmettStore;
  };
  return emmett.getPostgreSQLEventStore(url, { connectionOptions: { pooled: true, pool } });
}

interface Scenario {
  name: string;
  events: number;
  ours(pool: Pool, store: PostgresEventStore, rep: number): Promise<number>;
  emmett(store: EmmettStore, rep: number): Promise<number>;
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
    emmett: (store, rep) => timed(ONE, () => concurrently(16, ONE, (i) => store.appendToStream(`emmett-one${rep}-${i}`, [{ type: 'CustomerImported', data: payload() }]))),
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
    emmett: (store, rep) =>
      timed(BATCHED, () => concurrently(4, BATCHED / 100, (i) => store.appendToStream(`emmett-batch${rep}-${i}`, Array.from({ length: 100 }, () => ({ type: 'CustomerImported', data: payload() }))))),
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

function emmettVersion(): string {
  // Its package.json is not exported: read it beside the resolved entry (dist/index.cjs).
  const entry = require.resolve('@event-driven-io/emmett-postgresql');
  return (JSON.parse(fs.readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;
}

async function main() {
  const db = await benchDatabase();
  const pool = createPool(db.url, { max: 16 });
  try {
    await runMigrations(pool, [POSTGRES_EVENT_STORE_MIGRATIONS]);
    await pool.query(`CREATE TABLE bench_plain (position bigserial PRIMARY KEY, id uuid NOT NULL UNIQUE, stream text NOT NULL, type text NOT NULL, data jsonb NOT NULL)`);
    const store = new PostgresEventStore(pool);
    const emmettPool = createPool(db.url, { max: 16 });
    const emmett = emmettStore(db.url, emmettPool);
    await emmett.appendToStream('emmett-warm-up', [{ type: 'WarmUp', data: {} }]); // creates its schema
    console.log(`### Event-log append, Postgres adapter (scenario 3)\n\n${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${db.serverVersion}, median of ${REPS}; the same events appended by the Emmett PostgreSQL event store (@event-driven-io/emmett-postgresql ${emmettVersion()}, on a pool of 16 connections like ours) and by plain INSERTs of the same rows into a table with no event-log checks (the table's own cost).\n`);
    console.log('| scenario | mds append (events/s) | Emmett (events/s) | × Emmett | plain INSERT (rows/s) | ratio to plain |');
    console.log('|---|---:|---:|---:|---:|---:|');
    try {
      for (const s of scenarios) {
        const ours: number[] = [];
        const theirs: number[] = [];
        const base: number[] = [];
        for (let rep = 0; rep < REPS; rep++) {
          base.push(await s.baseline(pool, rep));
          theirs.push(await s.emmett(emmett, rep));
          ours.push(await s.ours(pool, store, rep));
        }
        const [o, e, b] = [median(ours), median(theirs), median(base)];
        const f = (x: number) => Math.round(x).toLocaleString('en');
        console.log(`| ${s.name} (${s.events.toLocaleString('en')} events) | ${f(o)} | ${f(e)} | ${(o / e).toFixed(1)}× | ${f(b)} | ${(o / b).toFixed(2)} |`);
      }
    } finally {
      await emmett.close();
      await emmettPool.end().catch(() => undefined);
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
