import type { Pool } from 'pg';

export interface CheckpointListener {
  on(event: 'mds_checkpoints', listener: (payload: string) => void): unknown;
  off(event: 'mds_checkpoints', listener: (payload: string) => void): unknown;
}

export class ProjectionTimeoutError extends Error {
  override name = 'ProjectionTimeoutError';
}

/**
 * Read-your-writes: resolves once the live generation of `name` has passed `position` (the position
 * an append returned). Wakes on checkpoint notifications and polls as a fallback. It listens before
 * each look at the checkpoint: an announcement that arrives while the look is under way wakes it too
 * (missed, it left the wait to its poll, a second: 2 of 330 writes in a row on an idle machine).
 */
export async function waitForProjection(
  pool: Pool,
  name: string,
  position: number,
  options: { timeoutMs?: number; notifications?: CheckpointListener; pollMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const check = async () => {
    const { rows } = await pool.query<{ checkpoint: number }>(`SELECT checkpoint FROM mds_projections WHERE name = $1 AND state = 'live'`, [name]);
    return (rows[0]?.checkpoint ?? 0) >= position;
  };
  let heard = false;
  let wake: (() => void) | undefined;
  // A building generation announces its checkpoints too: an announcement only says to look again.
  const onNotify = (payload: string) => {
    const [n, p] = payload.split(':');
    if (n !== name || Number(p) < position) return;
    heard = true;
    wake?.();
  };
  options.notifications?.on('mds_checkpoints', onNotify);
  try {
    for (;;) {
      heard = false;
      if (await check()) return;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new ProjectionTimeoutError(`projection ${name} did not reach position ${position} in time`);
      if (heard) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => wake?.(), Math.min(remaining, options.pollMs ?? (options.notifications ? 1000 : 50)));
        wake = () => {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        };
      });
    }
  } finally {
    options.notifications?.off('mds_checkpoints', onNotify);
  }
}

/**
 * For a projection that reads other read models while applying (campaign statistics read customers,
 * sales, products): waits, inside its transaction, until the live generation of each of `upstream`
 * has passed `position` (so they reflect everything up to the page being applied) and is at least the
 * given version (a newer shape its SQL relies on). Reads of upstream tables after this see a state at
 * or after the page's end; logs once in a while when an upstream projection is not running.
 */
export async function waitForUpstream(
  tx: { query: (sql: string, params?: unknown[]) => Promise<{ rows: Array<Record<string, unknown>> }>; signal?: AbortSignal; upstreamAt?: number },
  upstream: Record<string, number>,
  position: number,
  options: { pollMs?: number; timeoutMs?: number; warn?: (message: string, late: string[]) => void } = {},
): Promise<void> {
  // A replay built them first, in its own schema.
  if (tx.upstreamAt !== undefined && tx.upstreamAt >= position) return;
  const names = Object.keys(upstream);
  const started = Date.now();
  let warned = started;
  // Bounded, so a projector asked to stop is not held by a page waiting for a projection that does
  // not run: the page rolls back and is applied again when the runner restarts.
  const deadline = started + (options.timeoutMs ?? 60_000);
  for (;;) {
    const { rows } = await tx.query(`SELECT name, checkpoint, version FROM mds_projections WHERE state = 'live' AND name = ANY($1::text[])`, [names]);
    const late = names.filter((n) => {
      const row = rows.find((r) => r.name === n);
      return !row || Number(row.checkpoint) < position || Number(row.version) < upstream[n];
    });
    if (late.length === 0) return;
    if (tx.signal?.aborted) throw new ProjectionTimeoutError('stopped while waiting for read models');
    if (Date.now() > deadline) throw new ProjectionTimeoutError(`read models ${late.join(', ')} did not reach position ${position} in time`);
    if (Date.now() - warned > 30_000) {
      warned = Date.now();
      options.warn?.(`waiting ${Math.round((warned - started) / 1000)} s for read models to reach position ${position}`, late);
    }
    await new Promise((r) => setTimeout(r, options.pollMs ?? 20));
  }
}
