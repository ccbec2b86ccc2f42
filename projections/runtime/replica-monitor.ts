import type { Pool } from 'pg';
import type { EventStore } from '#mds/event-store';
import type { Logger } from '#mds/platform';
import { parseLsn, WalTimeline } from './replica-lag';

/** A streaming replica of the primary, as DATABASE_READ_URL names it. */
export interface Replica {
  /** `host:port/database`, no credentials: how /health and /metrics name it. */
  name: string;
  pool: Pool;
  /** The event log as the replica holds it, when the log is in PostgreSQL (else it is elsewhere: not on the replica). */
  log?: EventStore;
}

/**
 * `starting`: not checked yet; `streaming`: serves reads; `lagging`: replays the primary's WAL later
 * than the bound, skipped; `down`: does not answer, or is not a standby, skipped.
 */
export type ReplicaState = 'starting' | 'streaming' | 'lagging' | 'down';

/** A replica as `/health` names it and `/metrics` measures it. */
export interface ReplicaStatus {
  replica: string;
  state: ReplicaState;
  lag_seconds: number | null;
  lag_bytes: number | null;
  checked_at: string | null;
  error?: string;
}

/**
 * SQLSTATE classes that say the server is unavailable rather than the statement wrong: connection
 * exceptions, operator intervention (shutting down, starting up), insufficient resources, system
 * and internal errors. Errors without one come from the connection itself (refused, reset, timed out).
 */
const UNAVAILABLE = /^(08|57|53|58|XX)/;

export function isUnavailable(err: unknown): boolean {
  // The server's own errors carry a severity and a SQLSTATE; Node's (ECONNREFUSED, EPIPE) and pg's client-side ones do not.
  const e = err as { code?: unknown; severity?: unknown } | undefined;
  const sqlState = typeof e?.severity === 'string' && typeof e.code === 'string' ? e.code : undefined;
  return sqlState === undefined || UNAVAILABLE.test(sqlState);
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Checks every replica each `checkMs`: whether it answers as a standby, and how far its WAL replay
 * trails the primary (WalTimeline). A replica beyond `maxLagMs`, or not answering, is skipped until a
 * later check finds it back; a read that fails on one marks it down at once. Started by the first read
 * or status asked for, so processes that never read from replicas never connect to them.
 */
export class ReplicaMonitor {
  private readonly states = new Map<string, { state: ReplicaState; lagMs: number | null; lagBytes: number | null; checkedAt: Date | null; error?: string }>();
  private readonly timeline: WalTimeline;
  private timer?: NodeJS.Timeout;
  /** Ends the pause between two checks early: stop() must not wait out a pause it cancels. */
  private wake?: () => void;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly primary: Pool,
    readonly replicas: readonly Replica[],
    private readonly options: { maxLagMs: number; checkMs: number; logger?: Logger },
  ) {
    for (const r of replicas) this.states.set(r.name, { state: 'starting', lagMs: null, lagBytes: null, checkedAt: null });
    this.timeline = new WalTimeline(Math.max(2 * options.maxLagMs, 10 * options.checkMs));
  }

  start(): void {
    if (this.running || this.stopped) return;
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    // Clearing the timer alone would leave the loop awaiting a pause that never ends, and stop() with it.
    clearTimeout(this.timer);
    this.wake?.();
    await this.running;
  }

  /** Replicas that serve reads now. */
  usable(): Replica[] {
    return this.replicas.filter((r) => this.states.get(r.name)!.state === 'streaming');
  }

  /** A read failed on `replica` because it is unavailable: skipped until a check finds it back. */
  failed(replica: Replica, err: unknown): void {
    this.set(replica, { state: 'down', lagMs: null, lagBytes: null, checkedAt: new Date(), error: (err as Error)?.message ?? String(err) });
  }

  statuses(): ReplicaStatus[] {
    return this.replicas.map((r) => {
      const s = this.states.get(r.name)!;
      return {
        replica: r.name,
        state: s.state,
        lag_seconds: s.lagMs === null ? null : s.lagMs / 1000,
        lag_bytes: s.lagBytes,
        checked_at: s.checkedAt?.toISOString() ?? null,
        ...(s.error ? { error: s.error } : {}),
      };
    });
  }

  /** One round of checks: the primary's WAL position, then every replica against it. */
  async check(): Promise<void> {
    const timeout = Math.max(1000, this.options.checkMs);
    try {
      const { rows } = await withTimeout(this.primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn'), timeout);
      this.timeline.record(Date.now(), parseLsn(rows[0].lsn));
    } catch {
      // The primary's own trouble is /health's database check; the replicas are judged on the samples there are.
    }
    await Promise.all(this.replicas.map((r) => this.checkReplica(r, timeout)));
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      await this.check();
      if (this.stopped) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(resolve, this.options.checkMs);
        this.timer.unref();
      });
      this.wake = undefined;
    }
  }

  private async checkReplica(replica: Replica, timeout: number): Promise<void> {
    try {
      const { rows } = await withTimeout(
        replica.pool.query<{ standby: boolean; replayed: string | null }>('SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed'),
        timeout,
      );
      if (!rows[0].standby || rows[0].replayed === null) throw new Error('not a streaming replica (pg_is_in_recovery() is false): it would not follow the primary');
      const lag = this.timeline.lagOf(parseLsn(rows[0].replayed), Date.now());
      const lagging = lag.ms > this.options.maxLagMs;
      this.set(replica, {
        state: lagging ? 'lagging' : 'streaming',
        lagMs: lag.ms,
        lagBytes: lag.bytes,
        checkedAt: new Date(),
        ...(lagging ? { error: `replays the primary's WAL ${(lag.ms / 1000).toFixed(1)} s late, over the bound of ${this.options.maxLagMs / 1000} s (DATABASE_READ_MAX_LAG_MS)` } : {}),
      });
    } catch (err) {
      this.set(replica, { state: 'down', lagMs: null, lagBytes: null, checkedAt: new Date(), error: (err as Error)?.message ?? String(err) });
    }
  }

  private set(replica: Replica, next: { state: ReplicaState; lagMs: number | null; lagBytes: number | null; checkedAt: Date; error?: string }): void {
    const before = this.states.get(replica.name)!.state;
    this.states.set(replica.name, next);
    if (before === next.state) return;
    if (next.state === 'streaming') this.options.logger?.info({ replica: replica.name, was: before }, 'read replica serves reads');
    else this.options.logger?.warn({ replica: replica.name, state: next.state, error: next.error }, 'read replica skipped: the primary serves its reads');
  }
}
