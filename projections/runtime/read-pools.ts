import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool } from 'pg';
import type { EventStore } from '#mds/event-store';
import { AppError, type Logger } from '#mds/platform';
import { isUnavailable, ReplicaMonitor, type Replica, type ReplicaStatus } from './replica-monitor';

/** Where a read is served from: the read models' database and the log, on the primary or a replica. */
export interface ReadSource {
  pool: Pool;
  store: EventStore;
}

/**
 * What a read needs a replica to have replayed before it may serve a client who asked for a log
 * position: the read models it reads (their live checkpoints), or the log itself (the audit trail).
 */
export type ReadNeeds = { projections: readonly string[] } | { log: true };

/** Why a read went where it did, as `/metrics` counts them. */
export type ReadRoute = 'replica' | 'no_usable_replica' | 'position_not_replayed' | 'replica_failed';

const requiredPosition = new AsyncLocalStorage<number>();

/**
 * Runs `fn` so that the replica reads it makes reflect the log up to `position` at least: what a
 * client that saw a run complete at that position asks for (`Min-Position`). A request-scoped value
 * rather than a parameter of every query, so the query classes route the same way whoever calls them.
 */
export function readingAfter<T>(position: number, fn: () => T): T {
  return requiredPosition.run(position, fn);
}

/** The position the current request's reads must reflect (readingAfter), if it asked for one. */
export const requiredReadPosition = (): number | undefined => requiredPosition.getStore();

/**
 * Chooses, per read, where retrieval, campaign statistics, outlet logs and the audit trail are read:
 * a streaming replica that is up and within the lag bound (in turn), else the primary. Writes, runs,
 * and whatever a command decides on never come here: they read the primary's pool directly.
 *
 * Read-your-writes: with a position required (readingAfter), a replica serves only once its own copy
 * of the read models' checkpoints (`mds_projections`, replicated like any table) has passed it, so
 * what the client was told is readable is readable there; else the primary serves, without waiting.
 * A replica that fails a read because it is unavailable is marked down and the primary answers the
 * same read: the client never sees a replica's failure.
 */
export class ReadPools {
  private readonly monitor?: ReplicaMonitor;
  private turn = 0;
  private readonly routed = new Map<string, { servedBy: string; route: ReadRoute; count: number }>();

  constructor(
    private readonly primary: ReadSource,
    replicas: readonly Replica[] = [],
    options: { maxLagMs: number; checkMs: number; logger?: Logger } = { maxLagMs: 5000, checkMs: 1000 },
  ) {
    if (replicas.length > 0) this.monitor = new ReplicaMonitor(primary.pool, replicas, options);
  }

  /** Whether reads may go to a replica (one is configured). */
  get hasReplicas(): boolean {
    return this.monitor !== undefined;
  }

  /** `query` on the primary or on a replica that may serve it (see the class). */
  async read<T>(needs: ReadNeeds, query: (source: ReadSource) => Promise<T>): Promise<T> {
    if (!this.monitor) return query(this.primary);
    this.monitor.start();
    const usable = this.monitor.usable().filter((r) => !('log' in needs) || r.log);
    let route: ReadRoute = usable.length === 0 ? 'no_usable_replica' : 'position_not_replayed';
    const position = requiredPosition.getStore();
    const first = this.turn++ % Math.max(1, usable.length);
    for (const replica of [...usable.slice(first), ...usable.slice(0, first)]) {
      let answer: T;
      try {
        if (position !== undefined && !(await this.replayed(replica, needs, position))) continue;
        answer = await query({ pool: replica.pool, store: replica.log ?? this.primary.store });
      } catch (err) {
        // The client's own mistake is the same on the primary.
        if (err instanceof AppError) throw err;
        if (isUnavailable(err)) this.monitor.failed(replica, err);
        route = 'replica_failed';
        break;
      }
      this.count(replica.name, 'replica');
      return answer;
    }
    this.count('primary', route);
    return query(this.primary);
  }

  /** Each replica's state and lag (empty without replicas). */
  replicas(): ReplicaStatus[] {
    if (!this.monitor) return [];
    this.monitor.start();
    return this.monitor.statuses();
  }

  /** Reads counted by where they were served and why, since the process started. */
  routes(): Array<{ servedBy: string; route: ReadRoute; count: number }> {
    return [...this.routed.values()];
  }

  /** Stops the checks; the pools belong to whoever made them. */
  async close(): Promise<void> {
    await this.monitor?.stop();
  }

  /** Whether `replica` has replayed the log up to `position` for what the read needs. */
  private async replayed(replica: Replica, needs: ReadNeeds, position: number): Promise<boolean> {
    if ('log' in needs) {
      const { rows } = await replica.pool.query<{ position: number }>('SELECT position FROM mds_log_head');
      return (rows[0]?.position ?? 0) >= position;
    }
    const { rows } = await replica.pool.query<{ passed: number }>(
      `SELECT count(*)::int AS passed FROM mds_projections WHERE state = 'live' AND name = ANY($1::text[]) AND checkpoint >= $2`,
      [needs.projections, position],
    );
    return rows[0].passed === needs.projections.length;
  }

  private count(servedBy: string, route: ReadRoute): void {
    const key = `${servedBy}\n${route}`;
    const entry = this.routed.get(key) ?? { servedBy, route, count: 0 };
    entry.count++;
    this.routed.set(key, entry);
  }
}

/** `read.readPools` when there is one, else the primary: for query classes built without the composition root. */
export function readFrom<T>(read: { pool: Pool; store?: EventStore; readPools?: ReadPools }, needs: ReadNeeds, query: (source: ReadSource) => Promise<T>): Promise<T> {
  if (read.readPools) return read.readPools.read(needs, query);
  return query({ pool: read.pool, store: read.store! });
}
