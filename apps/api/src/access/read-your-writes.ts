import { serviceUnavailable } from '#mds/platform';
import type { Runtime } from '#mds/runtime';
import { waitForProjection, ProjectionTimeoutError } from '#mds/projections';

/**
 * Waits until a projection has applied an append, so the client's next request sees it. The append
 * is durable already: if no projector catches up in time the answer still goes out (logged), unless
 * `required`: then it is a 503 saying so (a revocation must not be answered before it holds).
 */
export async function awaitReadModel(runtime: Runtime, projection: string, position: number, options: { timeoutMs?: number; required?: string } = {}): Promise<void> {
  try {
    await waitForProjection(runtime.pool, projection, position, { notifications: runtime.notifications, timeoutMs: options.timeoutMs ?? 10_000 });
  } catch (err) {
    if (!(err instanceof ProjectionTimeoutError)) throw err;
    runtime.logger.warn({ projection, position }, 'answered before the read model caught up: is a projector running?');
    if (options.required) throw serviceUnavailable(`${options.required} is recorded in the event log, but the ${projection} read model has not applied it yet (is a projector running?); it holds once it has. Send the request again to wait for it`);
  }
}
