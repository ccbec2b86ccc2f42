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
 * an append returned). Wakes on checkpoint notifications and polls as a fallback.
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
  while (!(await check())) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new ProjectionTimeoutError(`projection ${name} did not reach position ${position} in time`);
    await new Promise<void>((resolve) => {
      const onNotify = (payload: string) => {
        const [n, p] = payload.split(':');
        if (n === name && Number(p) >= position) finish();
      };
      const finish = () => {
        clearTimeout(timer);
        options.notifications?.off('mds_checkpoints', onNotify);
        resolve();
      };
      const timer = setTimeout(finish, Math.min(remaining, options.pollMs ?? (options.notifications ? 1000 : 50)));
      options.notifications?.on('mds_checkpoints', onNotify);
    });
  }
}
