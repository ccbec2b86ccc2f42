import type { Client, Pool } from 'pg';
import type { RecordedEvent } from '#mds/event-store';
import type { Generation } from './catalog';
import type { Projection } from './projection';

/**
 * Failures that applying the same events again gives again: the data or the SQL is at fault, not
 * the connection. SQLSTATE classes 22 (data exception), 23 (integrity), 42 (syntax, undefined
 * object), 54 (program limit: an index entry too large), P0 (raised by a function), 2F/38/39
 * (function exceptions); and JavaScript's own errors from a projection's code. A lost connection,
 * a lock timeout, a full disk or a shutdown is tried again for as long as it lasts, never parked.
 */
export function isDeterministicFailure(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return ['22', '23', '42', '54', 'P0', '2F', '38', '39'].includes(code.slice(0, 2));
  return err instanceof TypeError || err instanceof RangeError || err instanceof SyntaxError || err instanceof ReferenceError;
}

/** Consecutive failures of a page before its events are applied one by one and the failing ones parked. */
export const PARK_AFTER_FAILURES = 3;

/** Pause before trying a failed page again (attempt counts from 1). */
export const retryPause = (attempt: number) => 200 * 2 ** (attempt - 1);

export interface ParkedEvent {
  projection: string;
  generation: number;
  position: number;
  event_id: string;
  stream: string;
  type: string;
  error: string;
  sqlstate: string | null;
  attempts: number;
  parked_at: string;
  retried_at: string | null;
}

/**
 * The error as kept and shown: PostgreSQL quotes the value that failed (`invalid input syntax for type
 * bigint: "…"`), which may be someone's personal data, beyond forgetting's reach here: quoted values
 * are emptied, the names of indexes, columns and the like kept.
 */
export const describeFailure = (err: unknown) =>
  ((err as Error)?.message ?? String(err)).replace(/(\b(?:index|constraint|relation|column|table|schema|type|sequence|view) )?"[^"]*"/g, (quoted, named) => (named ? quoted : '"…"')).slice(0, 2000);
const describe = describeFailure;
const sqlstate = (err: unknown) => {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : null;
};

/** Parks `event` for the generation (in the caller's transaction). */
export async function parkEvent(client: Pick<Client, 'query'>, projection: Projection, gen: Generation, event: RecordedEvent, err: unknown, attempts: number): Promise<void> {
  await client.query(
    `INSERT INTO mds_parked_events (projection, generation, position, event_id, stream, type, error, sqlstate, attempts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (projection, generation, position) DO UPDATE SET error = excluded.error, sqlstate = excluded.sqlstate, attempts = mds_parked_events.attempts + excluded.attempts`,
    [projection.name, gen.generation, event.position, event.id, event.stream, event.type, describe(err), sqlstate(err), attempts],
  );
}

/** Counts a failure of the generation, outside the failed transaction: /health and /metrics read it. */
export async function recordFailure(pool: Pick<Pool, 'query'>, projection: Projection, gen: Pick<Generation, 'generation'>, err: unknown): Promise<void> {
  await pool
    .query(`UPDATE mds_projections SET failures = failures + 1, last_error = $3, last_failed_at = now() WHERE name = $1 AND generation = $2`, [
      projection.name,
      gen.generation,
      describe(err),
    ])
    .catch(() => undefined); // the database may be what failed
}

/** Parked events of the live (and building) generations, oldest first; of one projection when named. */
export async function listParked(db: Pick<Pool, 'query'>, name?: string): Promise<ParkedEvent[]> {
  const { rows } = await db.query<ParkedEvent>(
    `SELECT p.projection, p.generation, p.position::float8 AS position, p.event_id, p.stream, p.type, p.error, p.sqlstate, p.attempts,
            to_json(p.parked_at)#>>'{}' AS parked_at, to_json(p.retried_at)#>>'{}' AS retried_at
       FROM mds_parked_events p JOIN mds_projections g ON g.name = p.projection AND g.generation = p.generation AND g.state <> 'retired'
      WHERE $1::text IS NULL OR p.projection = $1
      ORDER BY p.projection, p.generation, p.position`,
    [name ?? null],
  );
  return rows;
}

/** Per projection: its live generation's parked events, failures, and the last failure when recent. */
export async function projectionTrouble(db: Pick<Pool, 'query'>): Promise<Array<{ name: string; parked: number; failures: number; last_error: string | null; failing: boolean }>> {
  const { rows } = await db.query<{ name: string; parked: number; failures: number; last_error: string | null; failing: boolean }>(
    `SELECT g.name, (SELECT count(*)::int FROM mds_parked_events p WHERE p.projection = g.name AND p.generation = g.generation) AS parked,
            g.failures::float8 AS failures, g.last_error, coalesce(g.last_failed_at > now() - interval '1 minute' AND g.last_failed_at > g.updated_at, false) AS failing
       FROM mds_projections g WHERE g.state = 'live' ORDER BY g.name`,
  );
  return rows;
}
