import { PROJECTIONS } from '#mds/projections';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';

/**
 * `?dry_run=true` on every upload: the answer the import of the same body gives (accepted, rejected,
 * errors, warnings; `?atomic` and its 400 alike), without a run; nothing appended to the log (no run,
 * no event id reserved), no personal data kept, no Idempotency-Key used up; the real import after it
 * goes through as if there had been none.
 */
describe('dry runs of imports', () => {
  let api: TestApi;
  let token: string;
  let datasourceId: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: PROJECTIONS });
    token = (await seedUserToken(api.rt, 'dry-runner', ['admin'])).token;
    expect((await send('PATCH', '/api/settings/', { timezone: 'Europe/Helsinki', default_country: 'FI', company_prefixes: ['ACME'] })).status).toBe(200);
    const integration = await send('POST', '/api/integrations/', { name: 'Woo shop' });
    datasourceId = (await send('POST', '/api/datasources/', { name: 'customers', integration: integration.body.integration.id, datatype: 'customers' })).body.datasource.id;
    // An earlier sale and event, so that deletions and shipments have something to name.
    await completed(await send('POST', '/api/sales/upload/', { sales: [{ sale_external_id: 'T-0', sale_date: '2026-03-01', sale_customer_id: 'C-0', product_id: 'P-0', quantity: 1, unit_price: 100 }] }));
    await completed(await send('POST', '/api/events/upload/', { events: [{ type: 'BROWSE', date: '2026-03-01', customer_id: 'C-0', path: '/' }] }));
  });
  afterAll(async () => {
    await api?.close();
  });

  function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    return api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  async function completed(res: { status: number; body: { run_id: string } }) {
    expect(res.status).toBe(200);
    return eventually(async () => {
      const run = await send('GET', `/api/runs/${res.body.run_id}/`);
      if (run.body.state !== 'completed') throw new Error(`run ${run.body.state}`);
      return run.body;
    });
  }

  /** What was appended after `head`, less the token-use events any request may record (one a minute). */
  async function appendedSince(head: number) {
    const { events } = await api.rt.store.readAll({ after: head, limit: 1000 });
    return events.filter((e) => !e.stream.startsWith('token-use-')).map((e) => `${e.stream} ${e.type}`);
  }
  const personalRows = async () => Number((await api.rt.pool.query<{ n: string }>('SELECT count(*) AS n FROM mds_personal_data')).rows[0].n);

  const SALE = { sale_date: '2026-03-02T10:00:00+02:00', sale_customer_id: 'C-1', product_id: 'P-1', quantity: 2, unit_price: 250 };
  /** Per upload: a body with accepted, rejected and (where the datatype has them) warned records. */
  const UPLOADS: Array<[string, string, () => string, unknown]> = [
    ['POST', 'customers', () => '/api/customers/upload/', { customers: [{ external_id: 'C-1', email: 'ada@example.com', phone_number: '040 123 4567', ACME__tier: 'gold' }, { external_id: 'C-2', email: 'not an address' }, { first_name: 'nobody' }] }],
    ['PUT', 'customers', () => '/api/customer/upload/', { customers: [{ external_id: 'C-3', email: 'bo@example.com' }, { external_id: 'C-4', OTHER__x: 1 }] }],
    ['POST', 'products', () => '/api/products/upload/', { products: [{ external_id: 'P-1', title: 'Shoe', price: '4990' }, { title: 'no id' }, { external_id: 'P-2', price: 5.5 }] }],
    ['PUT', 'products', () => '/api/products/upload/', { products: [{ external_id: 'P-3', title: 'Sock', is_deleted: 'no' }] }],
    ['POST', 'events', () => '/api/events/upload/', [
      { type: 'browse', date: '2026-03-02', customer_id: 'C-1', path: '/shoes' },
      { type: 'ORDER_SHIPPED', date: '2026-03-02', customer_id: 'C-1', sale_id: 'T-unknown', tracking_number: 'JJ1' },
      { id: 999_999, is_deleted: true },
      { type: 'NO_SUCH_TYPE', date: '2026-03-02', customer_id: 'C-1' },
    ]],
    ['PUT', 'events', () => '/api/events/upload/', { events: [{ id: 1, is_deleted: true }] }],
    ['POST', 'sales', () => '/api/sales/upload/', { sales: [
      { ...SALE, sale_external_id: 'T-1', sale_state: 'wc-refunded-ish' },
      { ...SALE, sale_external_id: 'T-2', quantity: 'many' },
      { sale_external_id: 'T-3', product_id: 'P-1', quantity: 1, unit_price: 1 },
    ] }],
    ['PUT', 'sales', () => '/api/sale/upload/', { sales: [{ ...SALE, sale_external_id: 'T-0', external_id: 'row-2' }] }],
    ['POST', 'shops', () => '/api/shops/upload/', { shops: [{ external_id: 'web-fi', name: 'Web', locale: 'fi_FI' }, { name: 'no id' }] }],
    ['POST', 'campaigns', () => '/api/campaigns/upload/', { campaigns: [{ campaign_key: 'K-1', kind: 'email', name: 'Spring', state: 'active', activated_at: '2026-03-10' }, { name: 'no key' }] }],
    ['POST', 'campaign events', () => '/api/campaigns/events/upload/', { events: [{ campaign_key: 'K-1', type: 'open', date: '2026-03-11', email: 'ada@example.com' }, { campaign_key: 'K-1', type: 'open' }] }],
    ['POST', 'a datasource', () => `/api/datasources/${datasourceId}/import/`, { customers: [{ external_id: 'C-5', email: 'cy@example.com' }, { email: 'bad' }] }],
    ['PUT', 'a datasource', () => `/api/datasources/${datasourceId}/import/`, { customers: [{ external_id: 'C-6', phone_number: '040 765 4321' }] }],
  ];

  it.each(UPLOADS)('%s of %s: the dry run answers as the import then does, and records nothing', async (method, _what, path, body) => {
    const head = await api.rt.store.headPosition();
    const personal = await personalRows();
    const dry = await send(method, `${path()}?dry_run=true`, body);
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ response: 'ok', dry_run: true });
    expect(dry.body).not.toHaveProperty('run_id');
    expect(dry.body).not.toHaveProperty('run_url');
    expect(await appendedSince(head)).toEqual([]);
    expect(await personalRows()).toBe(personal);

    const real = await send(method, path(), body);
    expect(real.status).toBe(200);
    const { run_id, run_url, ...answer } = real.body;
    expect(run_id).toEqual(expect.any(String));
    expect(run_url).toContain(run_id);
    const { dry_run, ...dryAnswer } = dry.body;
    expect(dry_run).toBe(true);
    expect(dryAnswer).toEqual(answer);
    expect(answer.accepted).toBeGreaterThan(0);
    await completed(real);
  });

  it('is taken by every upload route the OpenAPI document lists, POST and PUT, each spelling and the datasource import', async () => {
    const document = (await api.call('/api/docs/openapi.json')).body as { paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }> }>> };
    const one: Record<string, unknown> = {
      customers: { customers: [{ external_id: 'D-1', email: 'd1@example.com' }] },
      products: { products: [{ external_id: 'DP-1', title: 'Dry' }] },
      events: { events: [{ type: 'BROWSE', date: '2026-03-05', customer_id: 'D-1', path: '/dry' }] },
      sales: { sales: [{ ...SALE, sale_external_id: 'DT-1' }] },
      shops: { shops: [{ external_id: 'dry-shop' }] },
      campaigns: { campaigns: [{ campaign_key: 'DK-1', name: 'Dry' }] },
      'campaigns/events': { events: [{ campaign_key: 'K-1', type: 'open', date: '2026-03-12', email: 'd1@example.com' }] },
      // The datasource made above imports customers.
      datasources: { customers: [{ external_id: 'D-2' }] },
    };
    const routes = Object.entries(document.paths).filter(([path]) => /\/(upload|import)\/?$/.test(path)).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));
    // Four datatypes at two spellings with POST and PUT, shops, campaigns, campaign events, and the datasource import with both.
    expect(routes).toHaveLength(4 * 2 * 2 + 3 + 2);
    for (const { path, method, op } of routes) {
      expect([method, path, op.parameters?.some((p) => p.in === 'query' && p.name === 'dry_run')]).toEqual([method, path, true]);
      const kind = /^\/api\/(datasources|campaigns\/events|campaigns|[a-z]+?)s?\/(\{|upload)/.exec(path)![1];
      const datatype = kind === 'datasources' || kind === 'campaigns/events' || kind === 'campaigns' ? kind : `${kind}s`;
      const head = await api.rt.store.headPosition();
      const personal = await personalRows();
      const dry = await send(method, `${path.replace('{datasource_id}', datasourceId)}?dry_run=true`, one[datatype]);
      expect([method, path, dry.status, dry.body]).toEqual([method, path, 200, { response: 'ok', dry_run: true, accepted: 1, rejected: 0, errors: [] }]);
      expect(await appendedSince(head)).toEqual([]);
      expect(await personalRows()).toBe(personal);
    }
  });

  it('says what the real import would when it has errors and warnings to say', async () => {
    const events = await send('POST', '/api/events/upload/?dry_run=1', UPLOADS[4][3]);
    expect(events.body).toMatchObject({
      accepted: 2,
      rejected: 2,
      errors: [{ index: 2, field: 'id', code: 'not_found' }, { index: 3, field: 'type' }],
      warnings: [{ index: 1, field: 'sale_id', code: 'unknown_sale' }],
    });
    const sales = await send('POST', '/api/sales/upload/?dry_run=yes', UPLOADS[6][3]);
    expect(sales.body).toMatchObject({ accepted: 1, rejected: 2, warnings: [{ index: 0, field: 'sale_state' }] });
  });

  it('refuses as the import refuses: nothing valid, or anything invalid with atomic=true, is the same 400', async () => {
    const head = await api.rt.store.headPosition();
    for (const [path, body] of [
      ['/api/customers/upload/?atomic=true', { customers: [{ external_id: 'C-7' }, { email: 'bad' }] }],
      ['/api/products/upload/', { products: [{ title: 'no id' }] }],
      ['/api/sales/upload/?atomic=true', { sales: [{ ...SALE, sale_external_id: 'T-9', quantity: 'x' }] }],
    ] as const) {
      const dry = await send('POST', `${path}${path.includes('?') ? '&' : '?'}dry_run=true`, body);
      const real = await send('POST', path, body);
      expect(real.status).toBe(400);
      expect(dry.status).toBe(400);
      expect(dry.body).toEqual(real.body);
    }
    expect(await appendedSince(head)).toEqual([]);
    const bad = await send('POST', '/api/customers/upload/?dry_run=maybe', { customers: [{ external_id: 'C-8' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('dry_run must be true or false');
    // dry_run=false is an import.
    expect((await send('POST', '/api/customers/upload/?dry_run=false', { customers: [{ external_id: 'C-8' }] })).body.run_id).toEqual(expect.any(String));
  });

  it('neither uses nor keeps an Idempotency-Key: the real import with it afterwards is the first, whatever the dry run sent', async () => {
    const key = { 'idempotency-key': 'dry-then-real' };
    const dry = await send('POST', '/api/customers/upload/?dry_run=true', { customers: [{ external_id: 'C-10' }] }, key);
    expect(dry.status).toBe(200);
    expect(dry.headers.get('idempotent-replayed')).toBeNull();
    // Another body under the key: no 422, since the dry run recorded nothing under it.
    const real = await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'C-11' }] }, key);
    expect(real.status).toBe(200);
    expect(real.headers.get('idempotent-replayed')).toBeNull();
    await completed(real);
    // A dry run does not replay the key's answer either: it validates the body it is sent.
    const again = await send('POST', '/api/customers/upload/?dry_run=true', { customers: [{ external_id: 'C-12' }, { email: 'x' }] }, key);
    expect(again.body).toMatchObject({ dry_run: true, accepted: 1, rejected: 1 });
    // The key's form is checked as the import checks it.
    const long = await send('POST', '/api/customers/upload/?dry_run=true', { customers: [{ external_id: 'C-13' }] }, { 'idempotency-key': 'k'.repeat(256) });
    expect(long.status).toBe(400);
  });

  it('reserves no event ids: the next import gets the ids it would have got without the dry run', async () => {
    const before = await send('GET', '/api/data/events/?limit=10000');
    const lastId = Math.max(0, ...before.body.events.map((e: { id: number }) => e.id));
    const browse = { type: 'BROWSE', date: '2026-03-03', customer_id: 'C-1', path: '/dry' };
    expect((await send('POST', '/api/events/upload/?dry_run=true', [browse, browse, browse])).body.accepted).toBe(3);
    await completed(await send('POST', '/api/events/upload/', [{ ...browse, path: '/real' }]));
    const after = await send('GET', '/api/data/events/?path=/real');
    expect(after.body.events.map((e: { id: number }) => e.id)).toEqual([lastId + 1]);
    // Nothing of the dry run is readable.
    expect((await send('GET', '/api/data/events/?path=/dry')).body.events).toEqual([]);
  });
});
