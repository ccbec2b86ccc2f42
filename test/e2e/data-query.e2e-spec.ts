import { customersProjection, eventsProjection, productsProjection, rebuildProjection, salesProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';

type Json = Record<string, any>;

describe('bulk update (POST /api/data/query/)', () => {
  let api: TestApi;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: [customersProjection, productsProjection, eventsProjection, salesProjection] });
    token = (await seedUserToken(api.rt, 'bulk', ['staff'])).token;
  });
  afterAll(async () => {
    await api?.close();
  });

  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  async function applied(res: { status: number; body: Json }) {
    expect(res.status).toBe(200);
    await eventually(async () => {
      const run = await send('GET', `/api/runs/${res.body.run_id}/`);
      if (run.body.state !== 'completed') throw new Error(run.body.state);
    });
    return res.body;
  }
  const list = async (datatype: string, query = '?limit=1000') => (await send('GET', `/api/data/${datatype}/${query}`)).body[datatype] as Json[];

  beforeAll(async () => {
    await applied(await send('POST', '/api/customers/upload/', { customers: [
      { external_id: 'A', tags: ['vip'], can_email: true },
      { external_id: 'B', tags: ['vip', 'new'], can_email: true },
      { external_id: 'C', tags: ['new'], can_email: true },
    ] }));
    await applied(await send('POST', '/api/products/upload/', { products: [{ external_id: 'P1', category: 'Shoes' }, { external_id: 'P2' }, { external_id: 'P3', category: 'Hats' }] }));
    await applied(await send('POST', '/api/events/upload/', [
      { type: 'BROWSE', date: '2024-01-01', customer_id: 'A', product_id: 'P1' },
      { type: 'BROWSE', date: '2024-01-02', customer_id: 'A', path: '/x' },
      { type: 'BASKET_ADD', date: '2024-01-03', customer_id: 'B', product_id: 'P1' },
      { type: 'BROWSE', date: '2024-01-04', customer_id: 'C', product_id: 'P3' },
    ]));
    await applied(await send('POST', '/api/sales/upload/', { sales: [
      { sale_external_id: 'S1', sale_date: '2024-02-01', sale_customer_id: 'A', sale_state: 'pending', product_id: 'P1', quantity: 1, unit_price: 100 },
      { sale_external_id: 'S2', sale_date: '2024-02-01', sale_customer_id: 'B', sale_state: 'pending', product_id: 'P1', quantity: 1, unit_price: 100 },
      { sale_external_id: 'S3', sale_date: '2024-02-01', sale_customer_id: 'C', product_id: 'P1', quantity: 1, unit_price: 100 },
    ] }));
  });

  it('deletes the events a match reaches: equality, .exists and a list', async () => {
    const answer = await applied(await send('POST', '/api/data/query/', { datatype: 'events', match: { type: 'BROWSE', 'product_id.exists': true, customer_id: ['A', 'B', 'C'] }, update: { is_deleted: true } }));
    expect(answer.matched).toBe(2);
    expect((await list('events')).map((e) => [e.type, e.customer_id])).toEqual([['BROWSE', 'A'], ['BASKET_ADD', 'B']]);
  });

  it('sets customer fields and deletes customers; list fields match by containing the value', async () => {
    expect((await applied(await send('POST', '/api/data/query/', { datatype: 'customers', match: { tags: 'vip' }, update: { can_email: false, 'ACME__segment': 'gold' } }))).matched).toBe(2);
    expect((await list('customers')).map((c) => [c.external_id, c.can_email, c.ACME__segment])).toEqual([['A', false, 'gold'], ['B', false, 'gold'], ['C', true, undefined]]);
    expect((await applied(await send('POST', '/api/data/query/', { datatype: 'customers', match: { 'external_id.in': ['B', 'nobody'] }, update: { is_deleted: true } }))).matched).toBe(1);
    expect((await list('customers')).map((c) => c.external_id)).toEqual(['A', 'C']);
  });

  it('adds and removes list items of customers, as an import does', async () => {
    await applied(await send('POST', '/api/data/query/', { datatype: 'customers', match: { external_id: 'C' }, update: { 'tags.add': ['winter', 'vip'], 'tags.remove': 'new' } }));
    expect((await list('customers', '?external_id=C'))[0].tags).toEqual(['winter', 'vip']);
    expect((await send('POST', '/api/data/query/', { datatype: 'customers', match: { external_id: 'C' }, update: { 'tags.add': { not: 'a list' } } })).body.error.message).toMatch(/^update: tags\.add: expected a list/);
    expect((await send('POST', '/api/data/query/', { datatype: 'products', match: { external_id: 'P1' }, update: { 'tags.add': ['x'] } })).body.error.message).toBe('update: "tags.add" is not a field name');
  });

  it('updates products without a category and cancels pending sales (out of statistics)', async () => {
    expect((await applied(await send('POST', '/api/data/query/', { datatype: 'products', match: { 'category.exists': false }, update: { visible: false } }))).matched).toBe(1);
    expect((await list('products')).filter((p) => p.visible === false).map((p) => p.external_id)).toEqual(['P2']);
    expect((await applied(await send('POST', '/api/data/query/', { datatype: 'sales', match: { sale_state: 'PENDING_PAYMENT' }, update: { sale_state: 'canceled' } }))).matched).toBe(2);
    expect((await list('sales')).map((s) => [s.sale_external_id, s.sale_state])).toEqual([['S1', 'CANCELLED'], ['S2', 'CANCELLED'], ['S3', 'COMPLETE']]);
    const { rows } = await api.rt.pool.query('SELECT count(*)::int AS n FROM sales WHERE in_statistics');
    expect(rows[0].n).toBe(1);
  });

  it('is one event per request; a retry with the same Idempotency-Key gets the first answer', async () => {
    const body = { datatype: 'products', match: { external_id: 'P3' }, update: { brand: 'Acme' } };
    const first = await applied(await send('POST', '/api/data/query/', body, { 'idempotency-key': 'bulk-1' }));
    const again = await send('POST', '/api/data/query/', body, { 'idempotency-key': 'bulk-1' });
    expect(again.body).toEqual(first);
    const stream = await api.rt.store.readStream(`import-${first.run_id}`);
    expect(stream.map((e) => e.type)).toEqual(['DataQueryAccepted']);
    expect((await send('POST', '/api/data/query/', { ...body, update: { brand: 'Other' } }, { 'idempotency-key': 'bulk-1' })).status).toBe(422);
  });

  it.each([
    [{ datatype: 'orders', match: { a: 1 }, update: { b: 1 } }, 'datatype'],
    [{ datatype: 'customers', match: {}, update: { b: 1 } }, 'at least one condition'],
    [{ datatype: 'customers', match: { 'a.like': 'x' }, update: { b: 1 } }, 'a.like'],
    [{ datatype: 'customers', match: { 'a.exists': 'yes' }, update: { b: 1 } }, 'true or false'],
    [{ datatype: 'customers', match: { a: { $gt: 1 } }, update: { b: 1 } }, 'takes a string'],
    [{ datatype: 'customers', match: { a: 1 }, update: { email: 'x@y.z' } }, 'email cannot be changed'],
    [{ datatype: 'events', match: { a: 1 }, update: { is_deleted: false } }, 'only be set to true'],
    [{ datatype: 'sales', match: { a: 1 }, update: {} }, 'update must be'],
    [{ datatype: 'sales', match: { a: 1 }, update: { b: 1 }, extra: true }, 'Unknown key'],
  ])('refuses %j with a 400 naming the problem', async (body, message) => {
    const res = await send('POST', '/api/data/query/', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toContain(message);
  });

  it('gives the same read models after a rebuild', async () => {
    // Imports on both sides of a bulk update: a rebuild applies them in one page, as runs.
    await applied(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'D', tags: ['a'] }] }));
    await applied(await send('POST', '/api/data/query/', { datatype: 'customers', match: { external_id: 'D' }, update: { 'tags.add': ['b'] } }));
    await applied(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'D', city: 'Oulu', 'tags.add': ['c'] }] }));
    expect((await list('customers')).find((c) => c.external_id === 'D')).toMatchObject({ tags: ['a', 'b', 'c'], city: 'Oulu' });
    const snapshot = async () => Promise.all(['customers', 'products', 'events', 'sales'].map((d) => list(d)));
    const before = await snapshot();
    for (const p of [customersProjection, productsProjection, eventsProjection, salesProjection]) await rebuildProjection(api.rt.runnerDeps(), p);
    expect(await snapshot()).toEqual(before);
    // Each page as a whole: none failed and went one event at a time (which would hide a page's fault).
    expect(api.rt.logLines.filter((line) => line.includes('failed to apply a page'))).toEqual([]);
  });
});
