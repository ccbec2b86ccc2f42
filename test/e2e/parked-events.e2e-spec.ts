import { randomUUID } from 'node:crypto';
import { IMPORT_RUN_ACCEPTED, importStream } from '#mds/imports';
import { SALES_IMPORTED } from '#mds/sales';
import { listParked, PROJECTIONS, rebuildProjection } from '#mds/projections';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';
import { runCli } from '../support/processes';

const SECRET = 'c'.repeat(64);

/**
 * A projection that cannot apply an event parks it and goes on: an event no projection can apply is
 * put straight into the log (bypassing the API's checks), and a release fault (a constraint the read
 * model should not have) blocks a valid one until it is "fixed".
 */
describe('parked events: a projection that cannot apply an event does not stop the world', () => {
  let api: TestApi;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: PROJECTIONS.filter((p) => p.name !== 'access'), env: { MDS_SECRET_KEY: SECRET } });
    token = (await seedUserToken(api.rt, 'ops', ['admin'])).token;
  });
  afterAll(async () => {
    await api?.close();
  });

  const send = (method: string, path: string, body?: unknown) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const cliEnv = () => ({ DATABASE_URL: api.rt.db.url, LOG_LEVEL: 'warn', MDS_SECRET_KEY: SECRET });

  async function runEnds(runId: string) {
    return eventually(
      async () => {
        const run = await send('GET', `/api/runs/${runId}/`);
        if (run.body.state === 'scheduled') throw new Error('still scheduled');
        return run.body;
      },
      { timeoutMs: 20_000, intervalMs: 25 },
    );
  }
  async function importSales(sales: unknown[]) {
    const res = await send('POST', '/api/sales/upload/', { sales });
    expect(res.status).toBe(200);
    return { runId: res.body.run_id as string, run: await runEnds(res.body.run_id) };
  }
  const saleRow = (id: string, total = 500) => ({ sale_external_id: id, sale_date: '2024-05-01T10:00:00Z', sale_customer_id: 'c1', product_id: 'p1', quantity: 1, unit_price: total });
  const salesTable = async () => (await api.rt.pool.query(`SELECT sale_external_id, data, products, sale_total, sale_state FROM sales ORDER BY sale_external_id`)).rows;

  /** An import run of one sales chunk whose row total no read model can read as a number. */
  async function injectUnappliable(): Promise<{ runId: string; position: number }> {
    const runId = randomUUID();
    const header = { run_id: runId, kind: 'sales', received: 1, accepted: 1, rejected: 0, errors: [], chunks: 1, body_hash: null, idempotency_key: null, created_at: new Date().toISOString() };
    const record = { sale_external_id: 'BAD', fields: { sale_date: '2024-05-01T10:00:00Z', sale_customer_id: 'c1' }, rows: [{ product_id: 'p1', quantity: 1, unit_price: 1, discount: 0, total: 'not a number' }] };
    const metadata = { actor: 'test', run_id: runId };
    const appended = await api.rt.store.append(
      importStream(runId),
      [
        { type: IMPORT_RUN_ACCEPTED, data: header, metadata },
        { type: SALES_IMPORTED, data: { run_id: runId, chunk: 1, records: [record] }, metadata },
      ],
      { expectedRevision: 'no_stream' },
    );
    return { runId, position: appended.position };
  }

  it('parks what it cannot apply, ends the run failed, goes on, says so in /health, /metrics and the CLI; retry applies it once fixed; a rebuild does not fail', async () => {
    expect((await importSales([saleRow('BEFORE')])).run.state).toBe('completed');

    // A release fault: the live sales table refuses one valid transaction.
    const { rows } = await api.rt.pool.query(`SELECT schema_name FROM mds_projections WHERE name = 'sales' AND state = 'live'`);
    await api.rt.pool.query(`ALTER TABLE "${rows[0].schema_name}".sales ADD CONSTRAINT release_fault CHECK (sale_external_id <> 'BLOCKED')`);
    const blocked = await importSales([saleRow('BLOCKED', 700)]);
    const injected = await injectUnappliable();

    // The run whose event was parked ends failed, naming the read model and the position.
    expect(blocked.run).toMatchObject({ state: 'failed', reason: expect.stringMatching(/the sales read model could not apply the event at log position \d+ \(SalesImported\).*release_fault.*mds projections retry/) });
    const bad = await runEnds(injected.runId);
    expect(bad).toMatchObject({ state: 'failed', reason: expect.stringContaining(`log position ${injected.position} (SalesImported)`) });

    // Later imports complete: the projection went on past both.
    const after = await importSales([saleRow('AFTER')]);
    expect(after.run.state).toBe('completed');
    expect((await send('GET', '/api/data/sales/?sale_external_id=AFTER')).body.sales).toHaveLength(1);
    expect((await send('GET', '/api/data/sales/?sale_external_id=BLOCKED')).body.sales).toHaveLength(0);

    // Loud: /health is degraded naming the projection and its count, /metrics has the count and the head.
    const health = await api.call('/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'degraded', projections: { status: 'degraded', parked: { sales: 2 } } });
    const metrics = (await send('GET', '/metrics')).text;
    expect(metrics).toMatch(/^mds_projection_parked_events\{projection="sales"\} 2$/m);
    expect(metrics).toMatch(/^mds_projection_parked_events\{projection="customers"\} 0$/m);
    expect(Number(/^mds_projection_apply_failures\{projection="sales"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3);
    expect(Number(/^mds_event_log_head_position (\d+)$/m.exec(metrics)?.[1])).toBe(await api.rt.store.headPosition());

    const listed = await runCli(['projections', 'parked', 'sales', '--json'], cliEnv());
    expect(listed.code).toBe(0);
    const parked = listed.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(parked.map((p) => [p.projection, p.stream, p.type])).toEqual([
      ['sales', importStream(blocked.runId), 'SalesImported'],
      ['sales', importStream(injected.runId), 'SalesImported'],
    ]);
    expect(parked[1]).toMatchObject({ position: injected.position, error: 'invalid input syntax for type bigint: "…"', sqlstate: '22P02' });
    // The value that failed is not kept (it could be someone's personal data).
    expect(JSON.stringify(parked)).not.toContain('not a number');

    // Retry before the fix: both stay parked, exit 1. After it: the blocked one is applied, its run completes.
    const early = await runCli(['projections', 'retry', 'sales'], cliEnv());
    expect([early.code, early.stdout.split('\n')[0]]).toEqual([1, 'sales: 0 parked event(s) applied, 2 still parked']);
    await api.rt.pool.query(`ALTER TABLE "${rows[0].schema_name}".sales DROP CONSTRAINT release_fault`);
    const retried = await runCli(['projections', 'retry', 'sales'], cliEnv());
    expect([retried.code, retried.stdout.split('\n')[0]]).toEqual([1, 'sales: 1 parked event(s) applied, 1 still parked']);
    expect((await send('GET', `/api/runs/${blocked.runId}/`)).body.state).toBe('completed');
    expect((await send('GET', '/api/data/sales/?sale_external_id=BLOCKED')).body.sales[0]).toMatchObject({ sale_total: 700 });
    expect((await api.call('/health')).body.projections.parked).toEqual({ sales: 1 });
    const retriedTable = await salesTable();

    // A rebuild parks the unappliable event again instead of failing, and builds what a clean run builds.
    const rebuilt = await rebuildProjection(api.rt.runnerDeps(), PROJECTIONS.find((p) => p.name === 'sales')!);
    expect(rebuilt.retired).toBeDefined();
    expect(await salesTable()).toEqual(retriedTable);
    expect((await listParked(api.rt.pool, 'sales')).map((p) => [p.generation, p.position])).toEqual([[rebuilt.generation, injected.position]]);
    expect((await runEnds(injected.runId)).state).toBe('failed');
  }, 120_000);
});
