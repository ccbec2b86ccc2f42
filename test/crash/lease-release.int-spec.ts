import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { Pool } from 'pg';
import { createTestDatabase, type TestDatabase } from '#mds/testing/database';
import { eventually } from '../support/eventually';
import { leaseHolders } from '../support/leases';

const RUNNER = path.resolve(__dirname, '../../dist/projections/runtime/projection-runner.js');

// Crash test: a process holding a lease (a projector, an outlet worker) is killed while its
// connection runs a statement. PostgreSQL must end that backend, and so free the lease for a standby,
// within seconds: not when the statement would have ended.
describe('a lease whose process is killed mid-statement', () => {
  let db: TestDatabase;
  let pool: Pool;
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = new Pool({ connectionString: db.url, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('is freed within seconds, not when the statement ends', async () => {
    // The service's own dedicated connection (compiled, as `mds` runs it), holding a lease and then
    // running a statement of two minutes.
    const script = `const { openDedicatedClient, tryLease } = require(${JSON.stringify(RUNNER)});
      (async () => {
        const client = await openDedicatedClient({ databaseUrl: process.env.LEASE_TEST_URL }, 'lease-test');
        if (!(await tryLease(client, 'lease-test'))) process.exit(2);
        await client.query('SELECT pg_sleep(120)');
      })();`;
    const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, LEASE_TEST_URL: db.url }, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const held = async () =>
      (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = 'mds-lease-test' AND a.state = 'active' AND a.query LIKE '%pg_sleep%'`)).rows[0].n;
    try {
      await eventually(async () => expect(await held()).toBe(1), { timeoutMs: 30_000, intervalMs: 50 });
      child.kill('SIGKILL');
      const killedAt = Date.now();
      await exited;
      // Without the check the lease stays until the two minutes are up.
      await eventually(async () => expect(await leaseHolders(pool)).toEqual([]), { timeoutMs: 45_000, intervalMs: 50 });
      console.log(`lease release: the holder killed during a statement of 120 s; its lease was free ${Date.now() - killedAt} ms later`);
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});
