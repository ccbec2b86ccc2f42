import { randomUUID } from 'node:crypto';
import { productsProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { unstamped } from '../support/records';
import { followPages } from '../support/paging';

describe('product import and retrieval over HTTP', () => {
  let api: TestApi;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: [productsProjection] });
    token = (await seedUserToken(api.rt, 'catalog', ['staff'])).token;
  });
  afterAll(async () => {
    await api?.close();
  });

  const send = (method: string, path: string, body?: unknown) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

  async function importProducts(products: unknown[]) {
    const res = await send('POST', '/api/products/upload/', { products });
    expect(res.status).toBe(200);
    await eventually(async () => {
      const run = await send('GET', `/api/runs/${res.body.run_id}/`);
      if (run.body.state !== 'completed') throw new Error(run.body.state);
    });
    return res.body;
  }

  it('coerces what plugins send and keeps one row per product and language, applied in order', async () => {
    const answer = await importProducts([
      { external_id: 501, title: 'Parent', price: 0, sale_price: 0, category: 'Shoes, Running', category_id: [12, 13], main_product_ids: [500], stock: [{ shop_id: 1, quantity: '4.0' }], visible: '1', custom_colour: 'red' },
      { external_id: 501, language: 'fi', title: 'Isä', url: 'https://example.com/fi/501' },
      { external_id: 501, language: 'sv', title: 'Förälder' },
      { external_id: 501, language: 'fi', description: 'Kuvaus', url: '' },
      { external_id: 502, price: 3400.0, sale_price: '2999', in_stock: 'false', date: '2024-05-01 09:00:00' },
      { external_id: 503, price: 34.5 },
      { title: 'no id' },
      { external_id: 504, stock: [{ quantity: 1 }] },
    ]);
    expect(answer).toMatchObject({ accepted: 5, rejected: 3 });
    expect(answer.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [5, 'fractional_cents'],
      [6, 'required'],
      [7, 'invalid_stock'],
    ]);
    const rows = (await send('GET', '/api/data/products/?external_id=501')).body.products.map((p: object) => unstamped(p));
    expect(rows).toEqual([
      { external_id: '501', title: 'Parent', price: 0, sale_price: 0, category: 'Shoes, Running', category_id: '12, 13', main_product_ids: ['500'], stock: [{ shop_id: '1', quantity: 4 }], visible: true, custom_colour: 'red' },
      { external_id: '501', language: 'fi', title: 'Isä', description: 'Kuvaus' },
      { external_id: '501', language: 'sv', title: 'Förälder' },
    ]);
    expect((await send('GET', '/api/data/products/?external_id=502')).body.products.map((p: object) => unstamped(p))).toEqual([
      { external_id: '502', price: 3400, sale_price: 2999, in_stock: false, date: '2024-05-01T09:00:00.000000Z' },
    ]);
    expect((await send('GET', '/api/data/products/?category=Running')).body.products.map((p: { external_id: string }) => p.external_id)).toEqual(['501']);
  });

  it('keeps category and category_id as the strings sent, joins a list, and finds a product by the whole text or one of its parts', async () => {
    await importProducts([
      { external_id: 'CAT-1', category: 'Boots, Trail', category_id: '112,113' },
      { external_id: 'CAT-2', category: ['Bags', ' Leather '], category_id: [7, 8] },
      { external_id: 'CAT-3', category: 'Hats', category_id: 9 },
      { external_id: 'CAT-4', category: 'Hats', category_id: [] },
    ]);
    const byId = async (query: string) => (await send('GET', `/api/data/products/?${query}`)).body.products.map((p: { external_id: string }) => p.external_id);
    expect((await send('GET', '/api/data/products/?external_id=CAT-1')).body.products.map((p: object) => unstamped(p))).toEqual([{ external_id: 'CAT-1', category: 'Boots, Trail', category_id: '112,113' }]);
    expect((await send('GET', '/api/data/products/?external_id=CAT-2')).body.products.map((p: object) => unstamped(p))).toEqual([{ external_id: 'CAT-2', category: 'Bags, Leather', category_id: '7, 8' }]);
    expect((await send('GET', '/api/data/products/?external_id=CAT-3')).body.products.map((p: object) => unstamped(p))).toEqual([{ external_id: 'CAT-3', category: 'Hats', category_id: '9' }]);
    expect((await send('GET', '/api/data/products/?external_id=CAT-4')).body.products.map((p: object) => unstamped(p))).toEqual([{ external_id: 'CAT-4', category: 'Hats' }]);
    expect(await byId(`category=${encodeURIComponent('Boots, Trail')}`)).toEqual(['CAT-1']);
    expect(await byId('category=Trail')).toEqual(['CAT-1']);
    expect(await byId('category=Leather')).toEqual(['CAT-2']);
    expect(await byId('category_id=113')).toEqual(['CAT-1']);
    expect(await byId('category_id=8')).toEqual(['CAT-2']);
    expect(await byId('category=Hats')).toEqual(['CAT-3', 'CAT-4']);
    // Products imported before categories were strings are lists in the log: read the same way.
    await api.rt.store.append(`import-${randomUUID()}`, [{ type: 'ProductsImported', data: { records: [{ external_id: 'CAT-OLD', category: ['Socks', 'Wool'], category_id: ['5'] }] } }]);
    await eventually(async () => expect((await send('GET', '/api/data/products/?external_id=CAT-OLD')).body.products.map((p: object) => unstamped(p))).toEqual([{ external_id: 'CAT-OLD', category: 'Socks, Wool', category_id: '5' }]));
    // A bulk update matches categories alike, and a list it sets is joined as an import's.
    const query = await send('POST', '/api/data/query/', { datatype: 'products', match: { category: 'Bags' }, update: { category: ['Bags', 'Travel'] } });
    expect([query.status, query.body.matched]).toEqual([200, 1]);
    await eventually(async () => expect((await send('GET', `/api/runs/${query.body.run_id}/`)).body.state).toBe('completed'));
    expect((await send('GET', '/api/data/products/?external_id=CAT-2')).body.products.map((p: object) => unstamped(p))).toEqual([{ external_id: 'CAT-2', category: 'Bags, Travel', category_id: '7, 8' }]);
  });

  it('pages product rows with next_url and accepts the /api/product/upload/ alias', async () => {
    const res = await send('POST', '/api/product/upload/', { products: Array.from({ length: 30 }, (_, i) => ({ external_id: `Q-${String(i).padStart(2, '0')}`, price: i * 100 })) });
    await eventually(async () => (await send('GET', `/api/runs/${res.body.run_id}/`)).body.state === 'completed' || Promise.reject(new Error('pending')));
    const pages = await followPages<{ external_id: string; language?: string }>((path) => send('GET', path), '/api/data/products/?limit=7', 'products');
    const seen = pages.flat().map((p) => `${p.external_id}/${p.language ?? ''}`);
    expect((await send('GET', '/api/data/products/?external_id=NO-SUCH')).body).toEqual({ products: [], count: 0, next_url: null });
    expect(seen.filter((k) => k.startsWith('Q-'))).toHaveLength(30);
    expect(new Set(seen).size).toBe(seen.length);
    expect((await send('GET', '/api/data/products/?after=bm90LWpzb24')).status).toBe(400);
  });
});
