import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { basic, httpCaller } from '../support/api';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { startEsdbDouble, type EsdbDouble } from '../support/esdb-double';
import { eventually } from '../support/eventually';
import { freePort, startCli } from '../support/processes';

const ADMIN = { username: 'admin', password: 'a long password for the start test' };

// `mds start` whole, as it runs with EVENTSTORE_URL: the compiled CLI in a child process, read models
// in PostgreSQL (a test database), the event log on the wire-level double of EventStoreDB (a test
// fixture, not a server) served from this test process on a loopback port, so that the test can take
// the "server" down and bring it back. The suite brings its own double, so the jest project with every
// test database's log on a double ("log on the EventStoreDB double") leaves it out (jest.config.js).
describe('mds start with EVENTSTORE_URL (the event log on the EventStoreDB double)', () => {
  let double: EsdbDouble;
  let db: TestDatabase;
  let dataDir: string;
  let svc: ReturnType<typeof startCli>;
  let call: ReturnType<typeof httpCaller>;
  let token: string;

  const health = () => call('/health');
  const upload = (customers: unknown[]) =>
    call('/api/customers/upload/', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ customers }) });
  /** Imports, waits until the run is completed, and returns the run's id. */
  async function imported(customers: Array<{ external_id: string }>): Promise<string> {
    const res = await upload(customers);
    expect([res.status, res.body.accepted]).toEqual([200, customers.length]);
    await eventually(async () => expect((await call(`/api/runs/${res.body.run_id}/`, { headers: { authorization: `Bearer ${token}` } })).body.state).toBe('completed'), { timeoutMs: 30_000 });
    return res.body.run_id;
  }
  const customer = async (externalId: string) => (await call(`/api/data/customers/?external_id=${externalId}`, { headers: { authorization: `Bearer ${token}` } })).body.customers;

  beforeAll(async () => {
    double = await startEsdbDouble();
    db = await createTestDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-start-esdb-'));
    const port = await freePort();
    call = httpCaller(`http://127.0.0.1:${port}`);
    svc = startCli(['start'], {
      DATABASE_URL: db.url,
      EVENTSTORE_URL: double.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      MDS_DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      MDS_ADMIN_USERNAME: ADMIN.username,
      MDS_ADMIN_PASSWORD: ADMIN.password,
      MDS_PASSWORD_HASH_COST: '10',
      MDS_RATE_LIMIT_PER_MINUTE: '0',
    });
    try {
      await eventually(async () => expect((await health()).status).toBe(200), { timeoutMs: 60_000, intervalMs: 100 });
    } catch (err) {
      throw new Error(`mds start did not become healthy: ${(err as Error).message}\n${svc.output()}`);
    }
    const issued = await call('/api/access-tokens/', { method: 'POST', headers: { authorization: basic(ADMIN.username, ADMIN.password) } });
    expect(issued.status).toBe(200);
    token = issued.body.access_token.token;
  }, 90_000);
  afterAll(async () => {
    if (svc) {
      svc.child.kill('SIGTERM');
      await svc.exited;
    }
    await double?.close();
    await db?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports the event log as EventStoreDB in /health, and keeps an import in the double, none of it in mds_events', async () => {
    expect((await health()).body).toMatchObject({ status: 'ok', database: { status: 'ok', embedded: false }, event_log: { status: 'ok', kind: 'esdb', head_position: expect.any(Number) } });
    const runId = await imported([{ external_id: 'ESDB-1' }, { external_id: 'ESDB-2' }]);
    expect(await customer('ESDB-2')).toEqual([expect.objectContaining({ external_id: 'ESDB-2' })]);
    expect(double.events.filter((e) => e.stream === `import-${runId}`).map((e) => e.revision)).toEqual([0, 1]);
    expect(double.events.some((e) => e.stream.startsWith('user-'))).toBe(true);
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      expect((await pg.query('SELECT count(*)::int AS n FROM mds_events')).rows[0].n).toBe(0);
    } finally {
      await pg.end();
    }
  });

  it('answers 503 naming the event log while the server is down, records nothing, and works again once it is back', async () => {
    await double.stop();
    try {
      await eventually(async () => expect((await health()).status).toBe(503), { timeoutMs: 15_000, intervalMs: 100 });
      expect((await health()).body).toMatchObject({ status: 'failing', database: { status: 'ok' }, event_log: { status: 'failing', error: expect.any(String) } });
      const refused = await upload([{ external_id: 'ESDB-DOWN' }]);
      expect(refused.status).toBe(503);
      expect(refused.body.error).toEqual({ code: 'unavailable', message: expect.stringContaining('event log is unavailable') });
    } finally {
      await double.restart();
    }
    await eventually(async () => expect((await health()).body).toMatchObject({ status: 'ok', event_log: { status: 'ok', kind: 'esdb' } }), { timeoutMs: 30_000, intervalMs: 100 });
    await imported([{ external_id: 'ESDB-BACK' }]);
    expect(await customer('ESDB-BACK')).toEqual([expect.objectContaining({ external_id: 'ESDB-BACK' })]);
    expect(await customer('ESDB-DOWN')).toEqual([]);
    expect(double.events.some((e) => e.data.includes('ESDB-DOWN'))).toBe(false);
  });
});
