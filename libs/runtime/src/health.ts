import { projectionTrouble } from '#mds/projections';
import type { Runtime } from './runtime';

interface Check {
  status: 'ok' | 'degraded' | 'failing';
  error?: string;
  [key: string]: unknown;
}

/** A dependency's answer, or why there is none: a server that does not answer fails after `timeoutMs`. */
async function check(probe: () => Promise<Record<string, unknown> | void>, timeoutMs = 2000): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { status: 'ok', ...(answer ?? {}) };
  } catch (err) {
    return { status: 'failing', error: (err as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether the database and the event log answer, and what they are, and whether every read model
 * applies what the log holds: `GET /health`. `degraded` when a projection parked events it could not
 * apply, or has kept failing for the last minute (named, with the count or the error).
 */
export async function serviceHealth(runtime: Runtime): Promise<{ status: 'ok' | 'degraded' | 'failing'; database: Check; event_log: Check; projections: Check }> {
  const [database, eventLog, projections] = await Promise.all([
    check(async () => {
      const { rows } = await runtime.pool.query<{ instance_id: string }>('SELECT instance_id FROM mds_instance');
      return { embedded: Boolean(runtime.embedded), instance_id: rows[0]?.instance_id };
    }),
    check(async () => {
      await runtime.store.ping();
      return { kind: runtime.store.kind, head_position: await runtime.store.headPosition() };
    }),
    check(async () => {
      const trouble = await projectionTrouble(runtime.pool);
      const parked = Object.fromEntries(trouble.filter((t) => t.parked > 0).map((t) => [t.name, t.parked]));
      // Names only: the errors are for operators (mds projections status), not for an open endpoint.
      const failing = trouble.filter((t) => t.failing).map((t) => t.name);
      return { parked, failing };
    }),
  ]);
  const troubled = projections.status === 'ok' && (Object.keys(projections.parked as object).length > 0 || (projections.failing as string[]).length > 0);
  if (troubled) projections.status = 'degraded';
  const status = database.status !== 'ok' || eventLog.status !== 'ok' ? 'failing' : troubled ? 'degraded' : 'ok';
  return { status, database, event_log: eventLog, projections };
}
