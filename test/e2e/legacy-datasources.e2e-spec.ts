import { customersProjection, productsProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { stamped } from '../support/records';

describe('legacy client paths: integrations by {name}, datasources and imports through them', () => {
  let api: TestApi;
  let admin: string;
  let auditor: string;
  let staff: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: [customersProjection, productsProjection] });
    admin = (await seedUserToken(api.rt, 'legacy-admin', ['admin'])).token;
    auditor = (await seedUserToken(api.rt, 'legacy-auditor', ['auditor'])).token;
    staff = (await seedUserToken(api.rt, 'legacy-staff', ['staff'])).token;
  });
  afterAll(async () => {
    await api?.close();
  });

  function send(method: string, path: string, body?: unknown, token = admin, headers: Record<string, string> = {}) {
    return api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  async function completed(runId: string) {
    return eventually(async () => {
      const run = await send('GET', `/api/runs/${runId}/`);
      if (run.body.state !== 'completed') throw new Error(`run ${run.status} ${run.body.state}`);
      return run.body;
    });
  }

  async function legacyIntegration(name: string) {
    const res = await send('POST', '/api/integrations/', { name });
    expect(res.status).toBe(200);
    return res.body.integration.id as string;
  }

  async function datasource(integration: string, datatype: string, name = `${datatype} source`) {
    const res = await send('POST', '/api/datasources/', { name, integration, datatype });
    expect(res.status).toBe(200);
    return res.body.datasource as { id: string; name: string; integration: string; datatype: string; created_at: string };
  }

  it('accepts the older integration body {name, description} and answers the same {integration}', async () => {
    const res = await send('POST', '/api/integrations/', { name: 'Woo shop', description: 'WooCommerce plugin 2.1' });
    expect(res.status).toBe(200);
    expect(res.body.integration).toMatchObject({
      id: expect.any(String), name: 'Woo shop', integration_name: '', enabled: true, description: 'WooCommerce plugin 2.1',
      parameters: { name: 'Woo shop', description: 'WooCommerce plugin 2.1' }, datasources: [], datatargets: [],
    });
    expect(res.body.integration.created_at).toMatch(/\.\d{6}Z$/);
    // Readable at once, as the current body's integrations are.
    const shown = await send('GET', `/api/integrations/${res.body.integration.id}/`);
    expect(shown.status).toBe(200);
    expect(shown.body.integration).toEqual(res.body.integration);
    // Description is optional; a name is not.
    expect((await send('POST', '/api/integrations/', { name: 'Magento' })).body.integration).toMatchObject({ name: 'Magento', description: '', parameters: { name: 'Magento', description: '' } });
    const nameless = await send('POST', '/api/integrations/', { name: '  ', description: 'x' });
    expect(nameless.status).toBe(400);
    expect(nameless.body.error).toEqual({ code: 'invalid_request', message: 'name is required' });
    expect((await send('POST', '/api/integrations/', { description: 'no name' })).body.error.code).toBe('invalid_request');
  });

  it('creates datasources in the integration stream and lists them in the integration wherever it is shown', async () => {
    const id = await legacyIntegration('Shop with sources');
    const other = await legacyIntegration('Shop without sources');
    const customers = await datasource(id, 'customers', 'Woo customers');
    expect(customers).toEqual({ id: expect.any(String), name: 'Woo customers', integration: id, datatype: 'customers', enabled: true, created_at: expect.any(String) });
    const products = await datasource(id, 'products', 'Woo products');
    expect(products.id).not.toBe(customers.id);

    // Read-your-writes: no waiting needed after the answer.
    expect((await send('GET', `/api/integrations/${id}/`)).body.integration.datasources).toEqual([customers, products]);
    expect((await send('GET', `/api/integrations/${other}/`)).body.integration.datasources).toEqual([]);
    const listed = (await send('GET', '/api/integrations/')).body;
    expect(listed.next_url).toBeNull();
    const all = listed.integrations as Array<{ id: string; datasources: unknown[] }>;
    expect(all.find((i) => i.id === id)?.datasources).toEqual([customers, products]);
    expect(all.find((i) => i.id === other)?.datasources).toEqual([]);
    expect((await send('GET', `/api/datasources/${customers.id}/`)).body).toEqual({ datasource: customers });
    expect((await send('GET', `/api/datasources/?integration=${id}`)).body).toEqual({ datasources: [customers, products], next_url: null });
    expect((await send('GET', '/api/datasources/')).body.datasources).toEqual(expect.arrayContaining([customers, products]));

    // Event-sourced: appended to the integration's stream after its creation.
    const stream = await api.rt.store.readStream(`integration-${id}`);
    expect(stream.map((e) => e.type)).toEqual(['IntegrationCreated', 'DatasourceCreated', 'DatasourceCreated']);
    expect(stream[1]).toMatchObject({ data: { datasource_id: customers.id, integration_id: id, datatype: 'customers' }, metadata: { schema: 1, actor: expect.stringMatching(/^users\//) } });

    // Concurrent creations on one integration all land (optimistic concurrency, retried).
    const many = await Promise.all(['a', 'b', 'c', 'd'].map((n) => send('POST', '/api/datasources/', { name: n, integration: other, datatype: 'events' })));
    expect(many.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await send('GET', `/api/integrations/${other}/`)).body.integration.datasources.map((d: { name: string }) => d.name).sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('refuses a bad datatype, a missing name or an unknown integration with a clear error', async () => {
    const id = await legacyIntegration('Strict shop');
    const badType = await send('POST', '/api/datasources/', { name: 'x', integration: id, datatype: 'orders' });
    expect(badType.status).toBe(400);
    expect(badType.body.error).toEqual({ code: 'invalid_request', message: 'datatype must be one of customers, products, events, sales' });
    const noName = await send('POST', '/api/datasources/', { integration: id, datatype: 'customers' });
    expect(noName.status).toBe(400);
    expect(noName.body.error.code).toBe('invalid_request');
    expect(noName.body.error.message).toMatch(/^name is required/);
    expect((await send('POST', '/api/datasources/', [{ name: 'x' }])).status).toBe(400);
    for (const unknown of ['7a1c6a2e-0000-4000-8000-000000000000', 'no/such:id']) {
      const res = await send('POST', '/api/datasources/', { name: 'x', integration: unknown, datatype: 'customers' });
      expect(res.status).toBe(422);
      expect(res.body.error).toEqual({ code: 'validation_error', message: `integration ${unknown} does not exist` });
    }
    // Nothing was appended by the refusals.
    expect((await api.rt.store.readStream(`integration-${id}`)).map((e) => e.type)).toEqual(['IntegrationCreated']);
    // Creating datasources needs the same permission as creating integrations.
    const denied = await send('POST', '/api/datasources/', { name: 'x', integration: id, datatype: 'customers' }, staff);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('forbidden');
  });

  it('imports customers through a datasource exactly as the upload endpoint does, with an integration token', async () => {
    const id = await legacyIntegration('Customer shop');
    const ds = await datasource(id, 'customers');
    const minted = await send('POST', '/api/access-tokens/', { name: 'plugin', owner_id: `integrations/${id}` });
    expect(minted.status).toBe(200);
    const plugin = minted.body.access_token.token as string;

    const res = await send('POST', `/api/datasources/${ds.id}/import/`, { customers: [{ external_id: 'LEG-1', email: 'leg1@example.com', can_email: '1' }, { first_name: 'no identifier' }] }, plugin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      response: 'ok', run_id: expect.any(String), run_url: `/api/runs/${res.body.run_id}/?wait=30`, accepted: 1, rejected: 1,
      errors: [{ index: 1, field: null, code: 'missing_identifier', message: 'a customer needs at least one of external_id, phone_number, email' }],
    });
    expect(await completed(res.body.run_id)).toMatchObject({ run_id: res.body.run_id, kind: 'customers', state: 'completed', accepted: 1, rejected: 1 });
    expect((await send('GET', '/api/data/customers/?external_id=LEG-1')).body.customers).toEqual([expect.objectContaining({ external_id: 'LEG-1', email: 'leg1@example.com', can_email: true })]);

    // PUT is the same import.
    const put = await send('PUT', `/api/datasources/${ds.id}/import/`, { customers: [{ external_id: 'LEG-1', first_name: 'Put' }] }, plugin);
    expect(put.status).toBe(200);
    await completed(put.body.run_id);
    expect((await send('GET', '/api/data/customers/?external_id=LEG-1')).body.customers[0]).toMatchObject({ email: 'leg1@example.com', first_name: 'Put' });

    // Idempotency-Key and ?atomic behave as on /api/customers/upload/.
    const body = { customers: [{ external_id: 'LEG-2', email: 'leg2@example.com' }] };
    const first = await send('POST', `/api/datasources/${ds.id}/import/`, body, plugin, { 'idempotency-key': 'legacy-1' });
    const retry = await send('POST', `/api/datasources/${ds.id}/import/`, body, plugin, { 'idempotency-key': 'legacy-1' });
    expect(retry.status).toBe(200);
    expect(retry.body.run_id).toBe(first.body.run_id);
    expect((await send('POST', `/api/datasources/${ds.id}/import/`, { customers: [{ external_id: 'LEG-9', email: 'leg9@example.com' }] }, plugin, { 'idempotency-key': 'legacy-1' })).status).toBe(422);
    const atomic = await send('POST', `/api/datasources/${ds.id}/import/?atomic=true`, { customers: [{ external_id: 'LEG-3', email: 'leg3@example.com' }, { first_name: 'x' }] }, plugin);
    expect(atomic.status).toBe(400);
    expect(atomic.body.error.code).toBe('invalid_request');
    // The wrong wrapping is refused as the upload endpoint refuses it.
    const wrong = await send('POST', `/api/datasources/${ds.id}/import/`, { customers: { external_id: 'x' } }, plugin);
    const direct = await send('POST', '/api/customers/upload/', { customers: { external_id: 'x' } }, plugin);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual(direct.body);
  });

  it('imports products through a products datasource', async () => {
    const ds = await datasource(await legacyIntegration('Product shop'), 'products');
    const res = await send('POST', `/api/datasources/${ds.id}/import/`, { products: [{ external_id: 'LP-1', title: 'Legacy shoe', price: '3450' }, { external_id: 'LP-2', price: 3400.0, language: 'fi' }, { title: 'no id' }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ response: 'ok', accepted: 2, rejected: 1, errors: [{ index: 2, code: 'required' }] });
    expect(await completed(res.body.run_id)).toMatchObject({ kind: 'products', state: 'completed', accepted: 2 });
    expect((await send('GET', '/api/data/products/?external_id=LP-2')).body.products).toEqual([stamped({ external_id: 'LP-2', language: 'fi', price: 3400 }, 'LP-2')]);
    expect((await send('GET', '/api/data/products/?external_id=LP-1')).body.products).toEqual([expect.objectContaining({ external_id: 'LP-1', title: 'Legacy shoe', price: 3450 })]);
    // The body is the datasource's datatype's: a customers body sent to a products datasource is refused.
    const mismatched = await send('POST', `/api/datasources/${ds.id}/import/`, { customers: [{ external_id: 'C-1' }] });
    expect(mismatched.status).toBe(400);
    expect(mismatched.body.error).toEqual({ code: 'invalid_request', message: 'The body must be {"products": [...]}; "products" is missing' });
  });

  it('answers PUT /api/customers/upload/ like POST', async () => {
    const post = await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'PP-1', email: 'pp1@example.com' }, { first_name: 'x' }] });
    const put = await send('PUT', '/api/customers/upload/', { customers: [{ external_id: 'PP-2', email: 'pp2@example.com' }, { first_name: 'x' }] });
    expect(post.status).toBe(200);
    expect(put.status).toBe(200);
    expect({ ...put.body, run_id: 'x', run_url: 'x' }).toEqual({ ...post.body, run_id: 'x', run_url: 'x' });
    expect(put.body.run_id).not.toBe(post.body.run_id);
    expect(await completed(put.body.run_id)).toMatchObject({ kind: 'customers', accepted: 1, rejected: 1 });
    expect((await send('GET', '/api/data/customers/?external_id=PP-2')).body.customers).toHaveLength(1);
  });

  it('answers 404 not_found for an unknown datasource', async () => {
    for (const [method, path] of [
      ['POST', '/api/datasources/0d9e4b8e-0000-4000-8000-000000000000/import/'],
      ['PUT', '/api/datasources/no-such-source/import/'],
      ['GET', '/api/datasources/no-such-source/'],
      ['GET', '/api/integrations/no-such-integration/'],
    ]) {
      const res = await send(method, path, method === 'GET' ? undefined : { customers: [{ external_id: 'NF-1' }] });
      expect([method, path, res.status]).toEqual([method, path, 404]);
      expect(res.body.error).toEqual({ code: 'not_found', message: expect.stringMatching(/^No (datasource|integration) /) });
    }
  });

  it('needs data:import to import through a datasource and access:manage to see datasources', async () => {
    const ds = await datasource(await legacyIntegration('Guarded shop'), 'customers');
    const head = await api.rt.store.headPosition();
    for (const method of ['POST', 'PUT']) {
      const res = await send(method, `/api/datasources/${ds.id}/import/`, { customers: [{ external_id: 'AUD-1' }] }, auditor);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect(await api.rt.store.headPosition()).toBe(head);
    expect((await send('GET', `/api/datasources/${ds.id}/`, undefined, auditor)).status).toBe(403);
    expect((await send('GET', '/api/integrations/', undefined, staff)).status).toBe(403);
    // Staff may import (data:import) through it.
    expect((await send('POST', `/api/datasources/${ds.id}/import/`, { customers: [{ external_id: 'STAFF-1' }] }, staff)).status).toBe(200);
  });

  it('documents every legacy route in the OpenAPI document', async () => {
    const doc = (await api.call('/api/docs/openapi.json')).body;
    const imp = doc.paths['/api/datasources/{datasource_id}/import'];
    expect(Object.keys(imp).sort()).toEqual(['post', 'put']);
    expect(imp.post.summary).toMatch(/legacy/);
    expect(imp.put.summary).toMatch(/legacy/);
    expect(Object.keys(doc.paths['/api/datasources']).sort()).toEqual(['get', 'post']);
    expect(doc.paths['/api/datasources'].post.summary).toMatch(/legacy/);
    expect(doc.paths['/api/datasources/{datasource_id}'].get.summary).toMatch(/legacy/);
  });
});
