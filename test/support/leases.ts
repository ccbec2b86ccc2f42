import type { Pool } from 'pg';
import { LEASE_NAMESPACE } from '#mds/projections';

/**
 * The backends holding a lease (a projection's, an outlet's, the audit anchor's) in the pool's own
 * database, with each one's client port. pg_locks lists every database of the server, and other test
 * files' processes hold leases of the same kind.
 */
export async function leaseHolders(pool: Pool): Promise<Array<{ pid: number; port: number }>> {
  const { rows } = await pool.query<{ pid: number; port: number }>(
    `SELECT l.pid, a.client_port AS port FROM pg_locks l JOIN pg_stat_activity a USING (pid)
      WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1 AND l.objsubid = 2
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [LEASE_NAMESPACE],
  );
  return rows;
}
