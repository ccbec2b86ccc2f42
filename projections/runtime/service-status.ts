import type { Projection } from './projection';
import { projectionTrouble } from './parking';
import { projectionStatuses } from './projector';
import type { ReadDeps } from './read-side';
import type { ReplicaStatus } from './replica-monitor';

export const SERVICE_STATUS = Symbol('ServiceStatus');

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

export type ServiceHealth = { status: 'ok' | 'degraded' | 'failing'; database: Check; event_log: Check; projections: Check; read_replicas?: ReplicaStatus[] };

/** What `/health` and `/metrics` report: the database, the event log and every read model's progress. */
export class ServiceStatus {
  constructor(private readonly read: ReadDeps & { projections: Projection[]; embedded?: unknown }) {}

  /**
   * Whether the database and the event log answer, and what they are, and whether every read model
   * applies what the log holds. `degraded` when a projection parked events it could not apply, or has
   * kept failing for the last minute (named, with the count or the error).
   */
  async health(): Promise<ServiceHealth> {
    const { pool, store } = this.read;
    const [database, eventLog, projections] = await Promise.all([
      check(async () => {
        const { rows } = await pool.query<{ instance_id: string }>('SELECT instance_id FROM mds_instance');
        return { embedded: Boolean(this.read.embedded), instance_id: rows[0]?.instance_id };
      }),
      check(async () => {
        await store.ping();
        return { kind: store.kind, head_position: await store.headPosition() };
      }),
      check(async () => {
        const trouble = await projectionTrouble(pool);
        const parked = Object.fromEntries(trouble.filter((t) => t.parked > 0).map((t) => [t.name, t.parked]));
        // Names only: the errors are for operators (mds projections status), not for an open endpoint.
        const failing = trouble.filter((t) => t.failing).map((t) => t.name);
        return { parked, failing };
      }),
    ]);
    const troubled = projections.status === 'ok' && (Object.keys(projections.parked as object).length > 0 || (projections.failing as string[]).length > 0);
    if (troubled) projections.status = 'degraded';
    const status = database.status !== 'ok' || eventLog.status !== 'ok' ? 'failing' : troubled ? 'degraded' : 'ok';
    // Replicas leave the status as it is: the primary serves whatever they cannot (their states say why).
    const replicas = this.read.readPools?.replicas() ?? [];
    return { status, database, event_log: eventLog, projections, ...(replicas.length > 0 ? { read_replicas: replicas } : {}) };
  }

  /** Each read replica's state and lag, and the reads counted by where they were served: `/metrics`. */
  readReplicas() {
    return { replicas: this.read.readPools?.replicas() ?? [], routes: this.read.readPools?.routes() ?? [] };
  }

  /** The log's head, every projection's checkpoint and lag, and what each could not apply: `/metrics`. */
  async readSide() {
    const { pool, store, projections } = this.read;
    const [statuses, head, trouble] = await Promise.all([projectionStatuses(pool, store, projections), store.headPosition(), projectionTrouble(pool)]);
    return { head, statuses, trouble };
  }
}
