import { customersProjection } from '#mds/projections';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { createTestDatabase, LOG_ON_ESDB_DOUBLE, type TestDatabase } from '../support/database';
import { eventually } from '../support/eventually';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../support/replica';

/**
 * Retrieval from a real streaming replica (DATABASE_READ_URL), made for this file from the embedded
 * PostgreSQL binaries: reads go to it, a read with a log position it has not replayed goes to the
 * primary, and stopping and starting it during reads costs the client nothing.
 */
describe('reads from a streaming replica', () => {
  let cluster: ReplicatedPostgres;
  let db: TestDatabase;
  let api: TestApi;
  let token: string;
  let replicaName: string;

  beforeAll(async () => {
    cluster = await startReplicatedPostgres();
    db = await createTestDatabase('mds_replica', cluster.primaryUrl);
    // A generous lag bound: replay is paused on purpose below, and the replica must still count as usable.
    api = await startTestApi({
      database: db,
      projections: [customersProjection],
      env: { DATABASE_READ_URL: cluster.replica.urlOf(db.url), DATABASE_READ_MAX_LAG_MS: '600000', DATABASE_READ_CHECK_MS: '100' },
    });
    token = (await seedUserToken(api.rt, 'reader', ['admin'])).token;
    replicaName = `127.0.0.1:${cluster.replica.port}/${db.name}`;
  }, 120_000);
  afterAll(async () => {
    try {
      await api?.close();
    } finally {
      // The servers are child processes: left running, they would keep jest from exiting.
      await cluster?.close();
    }
  });

  const get = (path: string, headers: Record<string, string> = {}) => api.call(path, { headers: { authorization: `Bearer ${token}`, ...headers } });

  /** Imports customers and waits for the run: its log_position. */
  async function imported(customers: Array<Record<string, unknown>>): Promise<number> {
    const res = await api.call('/api/customers/upload/', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ customers }) });
    expect(res.status).toBe(200);
    const run = await get(`/api/runs/${res.body.run_id}/?wait=30`);
    expect(run.body).toMatchObject({ state: 'completed', log_position: expect.any(Number) });
    return run.body.log_position as number;
  }

  /** Scans of a table on the replica, from its own statistics (reads there and nowhere else). */
  async function replicaScans(table: string): Promise<number> {
    const [row] = await cluster.replica.query<{ scans: string | null }>(
      db.name,
      `SELECT sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::text AS scans FROM pg_stat_user_tables WHERE relname = $1`,
      [table],
    );
    return Number(row?.scans ?? 0);
  }

  async function routed(servedBy: string, route: string): Promise<number> {
    const metrics = (await get('/metrics')).text;
    const line = metrics.split('\n').find((l) => l.startsWith(`mds_read_replica_reads_total{served_by="${servedBy}",route="${route}"}`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  }

  const externalIds = (body: { customers: Array<{ external_id?: string }> }) => body.customers.map((c) => c.external_id).sort();

  it('serves retrieval from the replica once it has the run, as its statistics show, and names it in /health', async () => {
    const position = await imported([{ external_id: 'R-1', email: 'r1@example.com' }, { external_id: 'R-2', email: 'r2@example.com' }]);
    const before = await replicaScans('customers');
    await eventually(
      async () => {
        const res = await get('/api/data/customers/', { 'Min-Position': String(position) });
        expect(res.status).toBe(200);
        expect(externalIds(res.body)).toEqual(['R-1', 'R-2']);
        expect(await replicaScans('customers')).toBeGreaterThan(before);
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(await routed(replicaName, 'replica')).toBeGreaterThan(0);

    await eventually(async () => {
      const health = await api.call('/health');
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('ok');
      expect(health.body.read_replicas).toEqual([expect.objectContaining({ replica: replicaName, state: 'streaming', lag_seconds: expect.any(Number), lag_bytes: expect.any(Number) })]);
    });
    expect((await get('/metrics')).text).toMatch(new RegExp(`^mds_read_replica_lag_seconds\\{replica="${replicaName.replace(/[./]/g, '\\$&')}"\\} \\d`, 'm'));
  });

  it('serves the audit trail from the replica\'s copy of the log, or from the primary when the log is on EventStoreDB', async () => {
    const table = 'mds_events';
    if (LOG_ON_ESDB_DOUBLE) {
      // The replica holds no log to read: every audit read is the primary's.
      const before = await routed('primary', 'no_usable_replica');
      expect((await get('/api/audit/events/?limit=5')).status).toBe(200);
      expect(await routed('primary', 'no_usable_replica')).toBe(before + 1);
      return;
    }
    const before = await replicaScans(table);
    await eventually(
      async () => {
        expect((await get('/api/audit/events/?limit=5')).status).toBe(200);
        expect(await replicaScans(table)).toBeGreaterThan(before);
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  });

  it('answers a read with a position the replica has not replayed from the primary, and from the replica once it has', async () => {
    let position = 0;
    await cluster.replica.query(db.name, 'SELECT pg_wal_replay_pause()');
    try {
      await eventually(async () => (await cluster.replica.query<{ state: string }>(db.name, 'SELECT pg_get_wal_replay_pause_state() AS state'))[0].state === 'paused');
      position = await imported([{ external_id: 'R-3', email: 'r3@example.com' }]);
      // The replica does not have the run …
      expect(await cluster.replica.query(db.name, `SELECT 1 FROM customers WHERE external_id = 'R-3'`)).toEqual([]);
      // … so a read that asks for it is the primary's, which has it (retried: on a busy machine a
      // check that answers late counts the replica down for a moment, and the primary serves for that reason),
      const wrong: Array<Array<string | undefined>> = [];
      const notReplayed = await routed('primary', 'position_not_replayed');
      await eventually(
        async () => {
          const fresh = await get('/api/data/customers/', { 'Min-Position': String(position) });
          expect(fresh.status).toBe(200);
          if (externalIds(fresh.body).join() !== 'R-1,R-2,R-3') wrong.push(externalIds(fresh.body));
          expect(await routed('primary', 'position_not_replayed')).toBeGreaterThan(notReplayed);
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      expect(wrong).toEqual([]);
      // while a read without it may be the replica's, which lags by as much as replay has been paused.
      await eventually(
        async () => {
          const stale = await get('/api/data/customers/');
          expect(stale.status).toBe(200);
          expect(externalIds(stale.body)).toEqual(['R-1', 'R-2']);
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
    } finally {
      await cluster.replica.query(db.name, 'SELECT pg_wal_replay_resume()');
    }
    await eventually(
      async () => {
        const served = await routed(replicaName, 'replica');
        const res = await get('/api/data/customers/', { 'Min-Position': String(position) });
        expect(externalIds(res.body)).toEqual(['R-1', 'R-2', 'R-3']);
        expect(await routed(replicaName, 'replica')).toBe(served + 1);
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  });

  it('keeps answering while the replica is stopped and started, the primary serving in between', async () => {
    const statuses: number[] = [];
    const wrong: string[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const res = await get('/api/data/customers/?limit=10');
        statuses.push(res.status);
        if (res.status === 200 && externalIds(res.body).join() !== 'R-1,R-2,R-3') wrong.push(res.text.slice(0, 200));
      }
    })();
    try {
      await cluster.replica.stop();
      await eventually(async () => (await api.call('/health')).body.read_replicas[0].state === 'down', { timeoutMs: 30_000 });
      const whileDown = await routed('primary', 'no_usable_replica');
      const down = await get('/api/data/customers/');
      expect(down.status).toBe(200);
      expect(await routed('primary', 'no_usable_replica')).toBeGreaterThan(whileDown);

      await cluster.replica.start();
      await eventually(async () => (await api.call('/health')).body.read_replicas[0].state === 'streaming', { timeoutMs: 30_000 });
      const served = await routed(replicaName, 'replica');
      await eventually(async () => (await routed(replicaName, 'replica')) > served, { timeoutMs: 30_000 });
    } finally {
      reading = false;
      await reader;
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(wrong).toEqual([]);
  });

  it('refuses a Min-Position that is not a log position', async () => {
    const res = await get('/api/data/customers/', { 'Min-Position': 'latest' });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'invalid_request', message: expect.stringContaining('Min-Position must be one log position') });
  });
});
