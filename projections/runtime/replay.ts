import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client, Pool } from 'pg';
import type { EventStore, ReadAllPage } from '#mds/event-store';
import { quoteIdent } from '#mds/platform';
import { EventDataNeeded, NAME, type Projection } from './projection';
import { openDedicatedClient, readerOf, readPage, type RunnerDeps } from './projection-runner';

/** Where a replay stands: the projection being built, how far, and the whole replay's ETA. */
export interface ReplayProgress {
  projection: string;
  /** 1-based index of `projection` among those replayed, and how many there are. */
  step: number;
  steps: number;
  position: number;
  until: number;
  events: number;
  eventsPerSecond: number;
  etaSeconds: number | undefined;
}

export interface ReplayResult {
  schema: string;
  until: number;
  events: number;
  seconds: number;
  projections: Array<{ name: string; version: number; events: number }>;
}

/** The table a replay leaves in its schema, saying what it holds. */
export const REPLAY_TABLE = 'mds_replay';

/** A replay's schema: a plain name that is none of the service's own (public, generations p_*, PostgreSQL's pg_*). */
export function checkReplaySchema(schema: string): string | undefined {
  if (!NAME.test(schema)) return 'the schema must be a snake_case name (a-z, 0-9, _; at most 41 characters)';
  if (schema === 'public' || schema.startsWith('p_') || schema.startsWith('pg_') || schema === 'information_schema') return `"${schema}" is a name the service or PostgreSQL uses; choose another`;
  return undefined;
}

/**
 * The log position a time stands for: the last event appended at or before it (0 when none was).
 * Positions are given in commit order and times as the rows are written, so a binary search over
 * positions finds it in a few reads.
 */
export async function positionAtTime(store: EventStore, time: string): Promise<number> {
  const limit = Date.parse(time);
  if (Number.isNaN(limit)) throw new Error(`not a time: ${time}`);
  const at = async (position: number) => (await store.readAll({ after: position - 1, limit: 1, withDataOf: [] })).events[0];
  let low = 0; // known at or before the time (0: before the log)
  let high = await store.headPosition(); // the candidate range's top
  const last = high === 0 ? undefined : await at(high);
  if (last && Date.parse(last.createdAt) <= limit) return last.position;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    const event = await at(middle);
    if (!event || event.position >= high) {
      high = middle;
      continue;
    }
    if (Date.parse(event.createdAt) <= limit) low = event.position;
    else high = event.position;
  }
  return low;
}

/** Projections ordered so each comes after the read models it reads while applying (`reads`). */
export function replayOrder(projections: Projection[]): Projection[] {
  const out: Projection[] = [];
  const visit = (p: Projection, path: string[]) => {
    if (out.includes(p)) return;
    if (path.includes(p.name)) throw new Error(`projections read each other: ${[...path, p.name].join(' → ')}`);
    for (const name of Object.keys(p.reads ?? {})) {
      const upstream = projections.find((q) => q.name === name);
      if (upstream) visit(upstream, [...path, p.name]);
    }
    out.push(p);
  };
  for (const p of projections) visit(p, []);
  return out;
}

/**
 * Builds every read model as it was at log position `until` into the schema `schema`, leaving the
 * live ones untouched: the projections' own migrations and apply functions, over the log from its
 * start to `until`, in an order where each comes after the read models it reads. The schema gets a
 * table `mds_replay` saying what it holds. An existing schema is refused unless `replace` is given
 * and it holds an earlier replay.
 */
export async function replayInto(
  deps: RunnerDeps,
  projections: Projection[],
  options: { until: number; schema: string; replace?: boolean; onProgress?: (p: ReplayProgress) => void },
): Promise<ReplayResult> {
  const problem = checkReplaySchema(options.schema);
  if (problem) throw new Error(problem);
  const started = Date.now();
  const schema = quoteIdent(options.schema);
  const ordered = replayOrder(projections);
  const client = await openDedicatedClient(deps, 'replay', { derivedState: true });
  try {
    const existing = await client.query<{ replay: boolean }>(
      `SELECT to_regclass($1) IS NOT NULL AS replay FROM pg_namespace WHERE nspname = $2`,
      [`${schema}.${REPLAY_TABLE}`, options.schema],
    );
    if (existing.rows.length > 0) {
      if (!options.replace) throw new Error(`schema ${options.schema} exists; choose another name, or give --replace to replace an earlier replay`);
      if (!existing.rows[0].replay) throw new Error(`schema ${options.schema} exists and holds no replay; it is left as it is`);
    }
    await client.query('BEGIN');
    try {
      if (existing.rows.length > 0) await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.query(`SET LOCAL search_path = ${schema}, public`);
      for (const p of ordered) {
        for (const file of fs.readdirSync(p.migrationsDir).filter((f) => f.endsWith('.sql')).sort()) {
          await client.query(fs.readFileSync(path.join(p.migrationsDir, file), 'utf8'));
        }
      }
      await client.query(`CREATE TABLE ${REPLAY_TABLE} (until_position bigint NOT NULL, until_time timestamptz, replayed_at timestamptz NOT NULL, projections jsonb NOT NULL, events bigint NOT NULL)`);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }

    let events = 0;
    const counts: ReplayResult['projections'] = [];
    for (const [i, projection] of ordered.entries()) {
      let applied = 0;
      await replayOne(client, deps, projection, options, (position, n) => {
        applied += n;
        events += n;
        if (!options.onProgress) return;
        const seconds = Math.max((Date.now() - started) / 1000, 0.001);
        const done = (i + Math.min(position, options.until) / Math.max(options.until, 1)) / ordered.length;
        options.onProgress({
          projection: projection.name,
          step: i + 1,
          steps: ordered.length,
          position: Math.min(position, options.until),
          until: options.until,
          events,
          eventsPerSecond: events / seconds,
          etaSeconds: done > 0 ? (seconds / done) * (1 - done) : undefined,
        });
      });
      counts.push({ name: projection.name, version: projection.version, events: applied });
    }
    const last = options.until === 0 ? undefined : (await deps.store.readAll({ after: options.until - 1, limit: 1, withDataOf: [] })).events[0];
    await client.query(`INSERT INTO ${schema}.${REPLAY_TABLE} VALUES ($1, $2, now(), $3, $4)`, [
      options.until,
      last?.position === options.until ? last.createdAt : null,
      JSON.stringify(counts),
      events,
    ]);
    return { schema: options.schema, until: options.until, events, seconds: (Date.now() - started) / 1000, projections: counts };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** One projection's pages from the log's start to `until`, each applied in a transaction in the schema. */
async function replayOne(
  client: Client,
  deps: RunnerDeps,
  projection: Projection,
  options: { until: number; schema: string },
  progress: (position: number, events: number) => void,
): Promise<void> {
  let after = 0;
  let allData = false;
  while (after < options.until) {
    let page: ReadAllPage = await readPage(deps.store, projection, after, deps.batchSize, allData);
    if (page.position === after) break; // the log ends before `until`
    const apply = async (p: ReadAllPage) => {
      const events = p.events.filter((e) => e.position <= options.until);
      if (events.length === 0) return events.length;
      await client.query(`BEGIN; SET LOCAL search_path = ${quoteIdent(options.schema)}, public`);
      try {
        // The read models this one reads were replayed to `until` first: nothing to wait for.
        await projection.apply(events, { query: client.query.bind(client) as never, schema: options.schema, position: Math.min(p.position, options.until), upstreamAt: options.until, keyedHash: deps.keyedHash, readAt: readerOf(deps.store) });
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
      return events.length;
    };
    let n: number;
    try {
      n = await apply(page);
    } catch (err) {
      if (!(err instanceof EventDataNeeded) || allData) throw err;
      allData = true;
      page = await readPage(deps.store, projection, after, deps.batchSize, true);
      n = await apply(page);
    }
    after = page.position;
    progress(after, n);
  }
}

/**
 * Runs `fn` with a connection whose unqualified table names are those of a replay's schema (the
 * retrieval queries then read the read models as they were), after checking the schema holds one.
 */
export async function withReplaySchema<T>(pool: Pool, schema: string, fn: (db: Pool) => Promise<T>): Promise<T> {
  const problem = checkReplaySchema(schema);
  if (problem) throw new Error(problem);
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ replay: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS replay`, [`${quoteIdent(schema)}.${REPLAY_TABLE}`]);
    if (!rows[0].replay) throw new Error(`schema ${schema} holds no replay (mds events replay --into ${schema} makes one)`);
    await client.query(`SET search_path = ${quoteIdent(schema)}, public`);
    try {
      return await fn(client as unknown as Pool);
    } finally {
      await client.query('RESET search_path');
    }
  } finally {
    client.release();
  }
}
