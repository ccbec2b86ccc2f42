import type { Runtime } from '#mds/runtime';
import { waitForProjection, ProjectionTimeoutError } from '#mds/projections';

/**
 * Waits until a projection has applied an append, so the client's next request sees it. The append
 * is durable already: if no projector catches up in time the answer still goes out (logged).
 */
export async function awaitReadModel(runtime: Runtime, projection: string, position: number, timeoutMs = 10_000): Promise<void> {
  try {
    await waitForProjection(runtime.pool, projection, position, { notifications: runtime.notifications, timeoutMs });
  } catch (err) {
    if (!(err instanceof ProjectionTimeoutError)) throw err;
    runtime.logger.warn({ projection, position }, 'answered before the read model caught up: is a projector running?');
  }
}
