import { waitForProjection } from './consistency';
import type { ReadDeps } from './read-side';

export const READ_MODEL_PROGRESS = Symbol('ReadModelProgress');

/**
 * How far the read models have applied the log: read-your-writes waits on it after an append (the
 * answer goes out once the read model has the change), and operators' commands before they read.
 */
export class ReadModelProgress {
  constructor(private readonly read: ReadDeps) {}

  /** Resolves once the live generation of `projection` has passed `position`; ProjectionTimeoutError after `timeoutMs`. */
  reached(projection: string, position: number, timeoutMs = 10_000): Promise<void> {
    return waitForProjection(this.read.pool, projection, position, { timeoutMs, notifications: this.read.notifications });
  }

  /** The log's head: what a read model has caught up with once it passed it. */
  head(): Promise<number> {
    return this.read.store.headPosition();
  }
}
