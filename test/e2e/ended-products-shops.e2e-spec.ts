import { PROJECTIONS, productsProjection, rebuildProjection, shopsProjection, waitForProjection } from '#mds/projections';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';

type Json = Record<string, any>;

const row = (sale: string, product: Json, quantity: number, unit: number) => ({ sale_external_id: sale, ...product, quantity, unit_price: unit });

/**
 * A product row or shop imported with `is_deleted: true` leaves retrieval (lists, one by id, exports)
 * and is shown with `?include_deleted=true`; it stays for what was counted and linked before: campaign
 * statistics, product linking, the sales that name it. The next import of its key without
 * is_deleted brings it back. Bulk updates do not reach it; a rebuild gives the same rows.
 */
describe('products and shops that end', () => {
  let api: TestApi;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: PROJECTIONS });
    token = (await seedUserToken(api.rt, 'catalogue', ['admin'])).token;
    await imported('products', [
      { external_id: 'P-1', title: 'Runner', category: 'Shoes', sku: 'SKU-1', brand: 'Trail' },
      { external_id: 'P-1', language: 'fi', title: 'Juoksija', brand: 'Trail' },
      { external_id: 'P-2', title: 'Tote', category: 'Bags', brand: 'Trail' },
    ]);
    await imported('shops', [{ external_id: 'web-fi', name: 'Web (fi)' }, { external_id: 'web-se', name: 'Web (se)' }]);
    await imported('customers', [{ external_id: 'K-1', email: 'k1@example.com' }]);
    await imported('campaigns', [{ campaign_key: 'A', kind: 'email', name: 'Spring', state: 'active', activated_at: '2026-03-01', product_ids: ['P-1'] }]);
    await completed(await send('POST', '/api/campaigns/events/upload/', { events: [{ campaign_key: 'A', type: 'sent', date: '2026-03-01T10:00:00Z', customer_id: 'K-1' }] }));
    await imported('sales', [
      { sale_external_id: 'S1', sale_date: '2026-03-05T12:00:00Z', sale_customer_id: 'K-1', sale_shop_id: 'web-se' },
      row('S1', { product_id: 'P-1' }, 2, 1000),
      row('S1', { product_id: 'P-2' }, 1, 500),
    ]);
  });
  afterAll(async () => {
    await api?.close();
  });

  function send(method: string, path: string, body?: unknown) {
    return api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  }
  async function completed(res: { status: number; body: Json }) {
    expect([res.status, res.body.errors ?? []]).toEqual([200, []]);
    await eventually(async () => {
      const run = await send('GET', `/api/runs/${res.body.run_id}/`);
      if (run.body.state !== 'completed') throw new Error(`run ${run.body.state}`);
    });
    // Campaign statistics follow products and sales a little later than their runs complete.
    await waitForProjection(api.rt.pool, 'campaigns', await api.rt.store.headPosition(), { timeoutMs: 30_000 });
  }
  const imported = async (datatype: string, records: unknown[]) => completed(await send('POST', `/api/${datatype}/upload/`, { [datatype]: records }));
  const get = async (path: string) => {
    const res = await send('GET', path);
    expect([path, res.status]).toEqual([path, 200]);
    return res.body as Json;
  };
  const keys = (products: Json[]) => products.map((p) => [p.external_id, p.language ?? null, p.is_deleted ?? null]);
  const lines = async (path: string) => (await send('GET', path)).text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Json);
  const salesFigures = async () => {
    const { campaigns } = await get('/api/campaign/actions/?keys=A');
    const { campaign_product_count, campaign_product_revenue, other_product_count, other_product_revenue, product_categories, total_revenue } = campaigns[0].stats.sales;
    return { campaign_product_count, campaign_product_revenue, other_product_count, other_product_revenue, product_categories, total_revenue };
  };

  it('leaves the lists, exports and reads by id; include_deleted shows it with is_deleted: true; statistics still count it', async () => {
    expect(await salesFigures()).toEqual({
      campaign_product_count: 2, campaign_product_revenue: 2000, other_product_count: 1, other_product_revenue: 500, total_revenue: 2500,
      product_categories: [{ title: 'Shoes', units: 2, revenue: 2000, discount: 0 }, { title: 'Bags', units: 1, revenue: 500, discount: 0 }],
    });
    // P-1's row without a language ends (its Finnish row stays); P-2 changes category in the same import, so the statistics are computed again.
    await imported('products', [{ external_id: 'P-1', is_deleted: true }, { external_id: 'P-2', category: 'Totes' }]);
    await imported('shops', [{ external_id: 'web-se', is_deleted: 1 }]);

    expect(keys((await get('/api/data/products/')).products)).toEqual([['P-1', 'fi', null], ['P-2', null, null]]);
    const all = (await get('/api/data/products/?include_deleted=true')).products as Json[];
    expect(keys(all)).toEqual([['P-1', null, true], ['P-1', 'fi', null], ['P-2', null, null]]);
    expect(all[0]).toMatchObject({ id: 'P-1', title: 'Runner', category: 'Shoes', is_deleted: true });
    expect((await send('GET', '/api/data/products/P-1/')).status).toBe(404);
    expect(await get('/api/data/products/P-1/?include_deleted=true')).toMatchObject({ title: 'Runner', is_deleted: true });
    expect(await get('/api/data/products/P-1/?language=fi')).toMatchObject({ title: 'Juoksija' });
    expect(keys(await lines('/api/export/products/'))).toEqual([['P-1', 'fi', null], ['P-2', null, null]]);

    expect((await get('/api/data/shops/')).shops.map((s: Json) => s.external_id)).toEqual(['web-fi']);
    expect((await get('/api/data/shops/?include_deleted=1')).shops).toEqual([
      expect.objectContaining({ external_id: 'web-fi', name: 'Web (fi)' }),
      { external_id: 'web-se', name: 'Web (se)', is_deleted: true, id: 'web-se', updated_at: expect.any(String) },
    ]);
    expect((await send('GET', '/api/data/shops/web-se/')).status).toBe(404);
    expect(await get('/api/data/shops/web-se/?include_deleted=true')).toMatchObject({ name: 'Web (se)', is_deleted: true });
    expect((await lines('/api/export/shops/')).map((s) => s.id)).toEqual(['web-fi']);
    const bad = await send('GET', '/api/data/shops/?include_deleted=perhaps');
    expect([bad.status, bad.body.error.message]).toEqual([400, 'include_deleted must be true or false']);

    // Kept for statistics: the ended product is still the campaign's product and counted under its category.
    expect(await salesFigures()).toEqual({
      campaign_product_count: 2, campaign_product_revenue: 2000, other_product_count: 1, other_product_revenue: 500, total_revenue: 2500,
      product_categories: [{ title: 'Shoes', units: 2, revenue: 2000, discount: 0 }, { title: 'Totes', units: 1, revenue: 500, discount: 0 }],
    });
    // And for history: the sale still names the product and the shop.
    const sale = await get('/api/data/sales/S1/');
    expect([sale.sale_shop_id, sale.products.map((r: Json) => r.product_id)]).toEqual(['web-se', ['P-1', 'P-2']]);
  });

  it('stays ended when sales and events name it, and still links them by sku', async () => {
    await imported('sales', [
      { sale_external_id: 'S2', sale_date: '2026-03-06T12:00:00Z', sale_customer_id: 'K-1' },
      row('S2', { product_id: 'P-1', product_title: 'Renamed by a sale' }, 1, 1000),
      row('S2', { product_sku: 'SKU-1' }, 1, 1000),
    ]);
    await imported('events', [{ type: 'BASKET_ADD', date: '2026-03-06', customer_id: 'K-1', product_id: 'P-1' }]);
    const p1 = await get('/api/data/products/P-1/?include_deleted=true');
    expect([p1.title, p1.is_deleted]).toEqual(['Runner', true]);
    expect((await get('/api/data/sales/S2/')).products.map((r: Json) => r.product_id)).toEqual(['P-1', 'P-1']);
    expect((await get('/api/data/products/?include_deleted=true&external_id=P-1')).products).toHaveLength(2);
  });

  it('is not reached by bulk updates', async () => {
    const res = await send('POST', '/api/data/query/', { datatype: 'products', match: { brand: 'Trail' }, update: { tags: 'sale' } });
    expect([res.status, res.body.matched]).toEqual([200, 2]);
    await completed(res);
    expect(keys((await get('/api/data/products/?include_deleted=true&tags=sale')).products)).toEqual([['P-1', 'fi', null], ['P-2', null, null]]);
  });

  it('comes back with the next import of its key without is_deleted (or with it false), its fields kept', async () => {
    await imported('products', [{ external_id: 'P-1', price: 1200 }]);
    await imported('shops', [{ external_id: 'web-se', is_deleted: 'no' }]);
    const p1 = await get('/api/data/products/P-1/');
    expect(p1).toMatchObject({ title: 'Runner', price: 1200 });
    expect(p1).not.toHaveProperty('is_deleted');
    expect((await get('/api/data/shops/')).shops.map((s: Json) => [s.external_id, s.is_deleted ?? null])).toEqual([['web-fi', null], ['web-se', null]]);
    expect((await lines('/api/export/shops/')).map((s) => s.id)).toEqual(['web-fi', 'web-se']);
  });

  it('is rebuilt from the log to the same rows', async () => {
    await imported('products', [{ external_id: 'P-2', is_deleted: 'true' }]);
    await imported('shops', [{ external_id: 'web-fi', is_deleted: true }]);
    for (const [projection, sql] of [
      [productsProjection, 'SELECT external_id, language, data, auto_created FROM products ORDER BY 1, 2'],
      [shopsProjection, 'SELECT external_id, data FROM shops ORDER BY 1'],
    ] as const) {
      const before = (await api.rt.pool.query(sql)).rows;
      expect(before.some((r) => r.data.is_deleted === true)).toBe(true);
      await rebuildProjection(api.rt.runnerDeps(), projection);
      expect([projection.name, (await api.rt.pool.query(sql)).rows]).toEqual([projection.name, before]);
    }
  });
});
