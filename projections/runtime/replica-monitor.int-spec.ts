import { createPool } from '#mds/platform';
import { createTestDatabase, type TestDatabase } from '#mds/testing/database';
import { eventually } from '#mds/testing/eventually';
import { ReplicaMonitor } from './replica-monitor';

// The checks against a real server; a real streaming replica is test/e2e/read-replicas.e2e-spec.ts's.
describe('ReplicaMonitor', () => {
  let db: TestDatabase;
  let pool: ReturnType<typeof createPool>;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url, { max: 2 });
  });

  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  it('skips a server that is not a standby, saying why', async () => {
    const monitor = new ReplicaMonitor(pool, [{ name: 'not-a-replica', pool }], { maxLagMs: 5000, checkMs: 60_000 });
    try {
      expect(monitor.statuses()).toEqual([expect.objectContaining({ replica: 'not-a-replica', state: 'starting' })]);
      await monitor.check();
      expect(monitor.statuses()).toEqual([expect.objectContaining({ state: 'down', error: expect.stringContaining('not a streaming replica') })]);
      expect(monitor.usable()).toEqual([]);
    } finally {
      await monitor.stop();
    }
  });

  it('stops while it pauses between two checks, without waiting the pause out', async () => {
    // A pause far longer than the test's timeout: a stop that waited for it would fail the test.
    const monitor = new ReplicaMonitor(pool, [{ name: 'not-a-replica', pool }], { maxLagMs: 5000, checkMs: 3_600_000 });
    monitor.start();
    await eventually(() => monitor.statuses()[0].state === 'down');
    await monitor.stop();
  });
});
