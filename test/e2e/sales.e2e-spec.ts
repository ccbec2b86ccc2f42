import { randomUUID } from 'node:crypto';
import { customersProjection, eventsProjection, productsProjection, rebuildProjection, salesProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { unstamped } from '../support/records';
import { followPages } from '../support/paging';

type Json = Record<string, any>;

describe('sales over HTTP', () => {
  let api: TestApi;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: [customersProjection, productsProjection, salesProjection, eventsProjection] });
    token = (await seedUserToken(api.rt, 'sales', ['staff'])).token;
  });
  afterAll(async () => {
    await api?.close();
  });

  const send = (method: string, path: string, body?: unknown) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

  async function importSales(sales: unknown[]) {
    const res = await send('POST', '/api/sales/upload/', { sales });
    expect(res.status).toBe(200);
    await eventually(async () => {
      const run = await send('GET', `/api/runs/${res.body.run_id}/`);
      if (run.body.state !== 'completed') throw new Error(run.body.state);
    });
    return res.body as Json;
  }
  const sale = async (id: string) => {
    const found = (await send('GET', `/api/data/sales/?sale_external_id=${id}`)).body.sales as Json[];
    expect(found).toHaveLength(1);
    return unstamped(found[0]);
  };

  it('combines Magento rows sent before their header row; discounts count by size whatever their sign', async () => {
    const answer = await importSales([
      { sale_external_id: 'M-1', product_id: 'P1', quantity: 2, unit_price: 1000.0, discount: -100 },
      { sale_external_id: 'M-1', product_id: 'P2', quantity: '1.005', unit_price: '500' },
      { sale_external_id: 'M-1', sale_date: '2024-08-01 12:00:00', sale_customer_id: 1043, sale_discount: -200.0, sale_state: 'complete', ACME__channel: 'web', sale_shipping: 490 },
    ]);
    expect(answer).toMatchObject({ accepted: 3, rejected: 0 });
    // Rows: 2 × 1000 − 100 = 1900 and 1.01 × 500 = 505; sale: 1900 + 505 − 200 = 2205 (shipping apart).
    expect(await sale('M-1')).toEqual({
      sale_external_id: 'M-1', sale_date: '2024-08-01T12:00:00.000000Z', sale_customer_id: '1043', sale_discount: 200, sale_state: 'COMPLETE',
      ACME__channel: 'web', sale_shipping: 490, sale_total: 2205,
      products: [
        { product_id: 'P1', quantity: 2, unit_price: 1000, discount: 100, total: 1900 },
        { product_id: 'P2', quantity: 1.01, unit_price: 500, discount: 0, total: 505 },
      ],
    });
    expect((await send('GET', '/api/data/sales/?ACME__channel=web')).body.sales.map((s: Json) => s.sale_external_id)).toEqual(['M-1']);
  });

  it('reads tags on a header row as the transaction\'s tags and tags on a product row as the row\'s', async () => {
    const answer = await importSales([
      { sale_external_id: 'T-1', product_id: 'P1', quantity: 1, unit_price: 1000, tags: ['gift-wrap'] },
      { sale_external_id: 'T-1', sale_date: '2024-08-01', sale_customer_id: 'C1', tags: 'b2b, campaign', gift_message: 'Happy birthday' },
      { sale_external_id: 'T-2', sale_date: '2024-08-01', sale_customer_id: 'C1', sale_tags: ['legacy'], product_id: 'P1', quantity: 1, unit_price: 100 },
    ]);
    // What a header row carries besides the transaction's fields and tags has no row to go to: said, not dropped silently.
    expect(answer.warnings).toEqual([{ index: 1, field: 'gift_message', code: 'ignored_field', message: expect.stringContaining('left out') }]);
    expect(await sale('T-1')).toEqual({
      sale_external_id: 'T-1', sale_date: '2024-08-01T00:00:00.000000Z', sale_customer_id: 'C1', sale_state: 'COMPLETE', sale_total: 1000, tags: ['b2b', 'campaign'],
      products: [{ product_id: 'P1', quantity: 1, unit_price: 1000, discount: 0, total: 1000, tags: ['gift-wrap'] }],
    });
    expect(await sale('T-2')).toMatchObject({ tags: ['legacy'], products: [{ product_id: 'P1', total: 100 }] });
    const ids = async (query: string) => (await send('GET', `/api/data/sales/?${query}`)).body.sales.map((s: Json) => s.sale_external_id);
    // `tags` is the transaction's (a row's tags are not a transaction filter).
    expect([await ids('tags=campaign'), await ids('sale_tags=legacy'), await ids('tags=gift-wrap')]).toEqual([['T-1'], ['T-2'], []]);
    // Imports from before kept the transaction's tags as sale_tags in the log: read the same way.
    await api.rt.store.append(`import-${randomUUID()}`, [{ type: 'SalesImported', data: { records: [{ sale_external_id: 'T-OLD', fields: { sale_date: '2024-08-01T00:00:00.000000Z', sale_customer_id: 'C1', sale_tags: ['old'] }, rows: [] }] } }]);
    await eventually(async () => expect(await ids('tags=old')).toEqual(['T-OLD']));
  });

  it('converts prices from the sale currency and rounds quantities half-up to two decimals', async () => {
    await importSales([
      { sale_external_id: 'FX-1', sale_date: '2024-08-02', sale_email: 'Buyer@Example.com', sale_currency: 'sek', sale_exchange_rate: 11.5, sale_shipping_in_currency: 2300, product_id: 'P1', quantity: 0.003, unit_price_in_currency: 11500 },
      { sale_external_id: 'FX-1', product_id: 'P2', quantity: 3, unit_price_in_currency: 1150, discount: 115 },
    ]);
    expect(await sale('FX-1')).toMatchObject({
      sale_currency: 'SEK', sale_exchange_rate: 11.5, sale_shipping: 200, sale_email: 'buyer@example.com', sale_total: 185,
      products: [
        { product_id: 'P1', quantity: 0, unit_price: 1000, unit_price_in_currency: 11500, total: 0 },
        { product_id: 'P2', quantity: 3, unit_price: 100, total: 185 },
      ],
    });
  });

  it('uses prices in the sale currency instead of the default-currency ones, and says when both were sent and disagree', async () => {
    const answer = await importSales([
      { sale_external_id: 'FX-2', product_id: 'P1', quantity: 1, unit_price: 1200, unit_price_in_currency: 2300 },
      { sale_external_id: 'FX-2', product_id: 'P2', quantity: 2, unit_price: 101, unit_price_in_currency: 1150 },
      { sale_external_id: 'FX-2', sale_date: '2024-08-02', sale_customer_id: 'C1', sale_currency: 'SEK', sale_exchange_rate: 11.5, sale_shipping: 500, sale_shipping_in_currency: 2300 },
    ]);
    // 2300 / 11.5 = 200 in place of 1200 (said); 1150 / 11.5 = 100 in place of 101 (within a cent); shipping 200 in place of 500 (said).
    expect(answer.warnings).toEqual([
      { index: 2, field: 'sale_shipping', code: 'currency_mismatch', message: expect.stringContaining('200 is used') },
      { index: 0, field: 'unit_price', code: 'currency_mismatch', message: expect.stringContaining('200 is used') },
    ]);
    expect((await send('GET', `/api/runs/${answer.run_id}/`)).body.warnings).toEqual(answer.warnings);
    expect(await sale('FX-2')).toMatchObject({
      sale_shipping: 200, sale_shipping_in_currency: 2300, sale_total: 400,
      products: [
        { product_id: 'P1', unit_price: 200, unit_price_in_currency: 2300, total: 200 },
        { product_id: 'P2', unit_price: 100, unit_price_in_currency: 1150, total: 200 },
      ],
    });
  });

  it('counts a returned row as nothing, maps state aliases, and leaves cancelled sales out of statistics', async () => {
    await importSales([
      { sale_external_id: 'R-1', sale_date: '2024-08-03', sale_customer_id: 'C1', product_id: 'P1', quantity: 1, unit_price: 2500 },
      { sale_external_id: 'R-1', product_id: 'P2', quantity: 1, unit_price: 0, tags: ['CANCELED'] },
      { sale_external_id: 'X-1', sale_date: '2024-08-03', sale_customer_id: 'C1', sale_state: 'wc-cancelled', product_id: 'P1', quantity: 1, unit_price: 900 },
      { sale_external_id: 'X-2', sale_date: '2024-08-03', sale_customer_id: 'C1', sale_state: 'ON-HOLD', product_id: 'P1', quantity: 1, unit_price: 900 },
      { sale_external_id: 'X-3', sale_date: '2024-08-03', sale_customer_id: 'C1', sale_state: 'PENDING', product_id: 'P1', quantity: 1, unit_price: 900 },
    ]);
    expect(await sale('R-1')).toMatchObject({ sale_total: 2500, sale_state: 'COMPLETE', products: [{ total: 2500 }, { total: 0, tags: ['CANCELED'] }] });
    expect([(await sale('X-1')).sale_state, (await sale('X-2')).sale_state, (await sale('X-3')).sale_state]).toEqual(['CANCELLED', 'HOLDED', 'PENDING_PAYMENT']);
    const { rows } = await api.rt.pool.query(`SELECT sale_external_id, in_statistics FROM sales WHERE sale_external_id IN ('R-1', 'X-1', 'X-2') ORDER BY 1`);
    expect(rows).toEqual([
      { sale_external_id: 'R-1', in_statistics: true },
      { sale_external_id: 'X-1', in_statistics: false },
      { sale_external_id: 'X-2', in_statistics: true },
    ]);
  });

  it('keeps an unknown state as sent with a warning in the run', async () => {
    const answer = await importSales([{ sale_external_id: 'U-1', sale_date: '2024-08-04', sale_customer_id: 'C1', sale_state: 'Awaiting Pickup', product_id: 'P1', quantity: 1, unit_price: 100 }]);
    expect(answer.warnings).toEqual([expect.objectContaining({ index: 0, field: 'sale_state', code: 'unknown_state' })]);
    expect((await send('GET', `/api/runs/${answer.run_id}/`)).body.warnings).toHaveLength(1);
    expect((await sale('U-1')).sale_state).toBe('Awaiting Pickup');
  });

  it('re-importing a transaction replaces its rows and state; date and customer may come from the earlier import', async () => {
    await importSales([
      { sale_external_id: 'RE-1', sale_date: '2024-08-05', sale_phone_number: '+358401112222', sale_discount: 100, product_id: 'P1', quantity: 1, unit_price: 1000 },
      { sale_external_id: 'RE-1', product_id: 'P2', quantity: 1, unit_price: 1000 },
    ]);
    expect((await sale('RE-1')).sale_total).toBe(1900);
    await importSales([{ sale_external_id: 'RE-1', sale_state: 'CANCELED', product_id: 'P1', quantity: 1, unit_price: 1000 }]);
    expect(await sale('RE-1')).toMatchObject({ sale_state: 'CANCELLED', sale_date: '2024-08-05T00:00:00.000000Z', sale_total: 900, products: [{ product_id: 'P1', total: 1000 }] });
    // An explicit sale_total holds for the import that sends it.
    await importSales([{ sale_external_id: 'RE-1', sale_total: 777, product_id: 'P1', quantity: 1 }]);
    expect((await sale('RE-1')).sale_total).toBe(777);
  });

  it('upserts rows that carry an external_id: a row sent again replaces its own, rows not sent stay', async () => {
    const row = (id: string, price: number, extra: Json = {}) => ({ sale_external_id: 'UP-1', external_id: id, product_id: `P-${id}`, quantity: 1, unit_price: price, ...extra });
    await importSales([{ ...row('R1', 300), sale_date: '2024-08-06', sale_customer_id: 'C1' }, row('R2', 200)]);
    expect((await sale('UP-1')).sale_total).toBe(500);
    // The spec's cancelling: only the returned row, at 0, tagged CANCELED; the other row stays.
    await importSales([row('R2', 0, { tags: ['CANCELED'] })]);
    expect(await sale('UP-1')).toMatchObject({ sale_total: 300, products: [{ external_id: 'R1', total: 300 }, { external_id: 'R2', total: 0, tags: ['CANCELED'] }] });
    // A transaction sent in two requests keeps both parts, in the order first sent.
    await importSales([row('R3', 50)]);
    expect((await sale('UP-1')).products.map((p: Json) => p.external_id)).toEqual(['R1', 'R2', 'R3']);
    // A header row alone (a new state) keeps the rows.
    await importSales([{ sale_external_id: 'UP-1', sale_state: 'processing' }]);
    expect(await sale('UP-1')).toMatchObject({ sale_state: 'PROCESSING', sale_total: 350 });
    // Rows without an external_id still replace the transaction's rows.
    await importSales([{ sale_external_id: 'UP-1', product_id: 'P9', quantity: 1, unit_price: 10 }]);
    expect(await sale('UP-1')).toMatchObject({ sale_total: 10, products: [{ product_id: 'P9', total: 10 }] });
  });

  it('refuses rows of one transaction some with an external_id and some without, and an upsert beyond 1,000 rows or the money limit', async () => {
    const mixed = await send('POST', '/api/sales/upload/', { sales: [
      { sale_external_id: 'MX-1', sale_date: '2024-08-06', sale_customer_id: 'C1', external_id: 'A', product_id: 'P1', quantity: 1, unit_price: 1 },
      { sale_external_id: 'MX-1', product_id: 'P2', quantity: 1, unit_price: 1 },
    ] });
    expect([mixed.status, mixed.body.error.details.map((e: Json) => [e.index, e.field, e.code])]).toEqual([400, [[0, 'external_id', 'mixed_rows'], [1, 'external_id', 'mixed_rows']]]);
    const rows = (from: number, n: number, price = 1) => Array.from({ length: n }, (_, i) => ({ sale_external_id: 'MANY-1', sale_date: '2024-08-06', sale_customer_id: 'C1', external_id: `R${from + i}`, product_id: 'P1', quantity: 1, unit_price: price }));
    await importSales(rows(0, 600));
    const over = await send('POST', '/api/sales/upload/', { sales: rows(600, 401) });
    expect([over.status, over.body.error.details[0]]).toEqual([400, expect.objectContaining({ field: 'sale_total', code: 'out_of_range', message: expect.stringMatching(/at most 1,000 rows; with these it would have 1001/) })]);
    await importSales(rows(600, 400));
    expect((await sale('MANY-1')).products).toHaveLength(1000);
    // Rows already there count towards the total too.
    const big = await send('POST', '/api/sales/upload/', { sales: [{ sale_external_id: 'BIG-1', sale_date: '2024-08-06', sale_customer_id: 'C1', external_id: 'A', product_id: 'P1', quantity: 1, unit_price: 700_000_000_000_000 }] });
    expect(big.status).toBe(200);
    await eventually(async () => expect((await sale('BIG-1')).sale_total).toBe(700_000_000_000_000));
    const more = await send('POST', '/api/sales/upload/', { sales: [{ sale_external_id: 'BIG-1', external_id: 'B', product_id: 'P1', quantity: 1, unit_price: 700_000_000_000_000 }] });
    expect([more.status, more.body.error.details[0].message]).toEqual([400, expect.stringMatching(/its total \(its rows' totals less sale_discount\) is 1400000000000000 cents, beyond the limit/)]);
  });

  it('takes a transaction\'s state from its latest import: one that sends none is COMPLETE, the spec\'s default', async () => {
    const inStatistics = async (id: string) => (await api.rt.pool.query(`SELECT in_statistics FROM sales WHERE sale_external_id = $1`, [id])).rows[0].in_statistics;
    await importSales([{ sale_external_id: 'ST-1', sale_date: '2024-08-05', sale_customer_id: 'C1', sale_state: 'CANCELED', product_id: 'P1', quantity: 1, unit_price: 500 }]);
    expect([(await sale('ST-1')).sale_state, await inStatistics('ST-1')]).toEqual(['CANCELLED', false]);
    // Re-sent without a state (the order placed again, a row added): COMPLETE, and counted again.
    await importSales([{ sale_external_id: 'ST-1', product_id: 'P1', quantity: 2, unit_price: 500 }]);
    expect(await sale('ST-1')).toMatchObject({ sale_state: 'COMPLETE', sale_total: 1000, sale_date: '2024-08-05T00:00:00.000000Z', sale_customer_id: 'C1' });
    expect(await inStatistics('ST-1')).toBe(true);
    // A bulk update's state holds until the next import, which supplies the state again.
    const query = await send('POST', '/api/data/query/', { datatype: 'sales', match: { sale_external_id: 'ST-1' }, update: { sale_state: 'on-hold' } });
    await eventually(async () => expect((await send('GET', `/api/runs/${query.body.run_id}/`)).body.state).toBe('completed'));
    expect((await sale('ST-1')).sale_state).toBe('HOLDED');
    await importSales([{ sale_external_id: 'ST-1', product_id: 'P1', quantity: 1, unit_price: 500 }, { sale_external_id: 'ST-1', sale_state: 'processing' }]);
    expect((await sale('ST-1')).sale_state).toBe('PROCESSING');
    await importSales([{ sale_external_id: 'ST-1', product_id: 'P1', quantity: 1, unit_price: 500 }]);
    expect((await sale('ST-1')).sale_state).toBe('COMPLETE');
  });

  it('finds the earlier import of a transaction even when it was sent a moment ago', async () => {
    const first = await send('POST', '/api/sales/upload/', { sales: [{ sale_external_id: 'RYW-1', sale_date: '2024-08-09', sale_customer_id: 'C1', product_id: 'P1', quantity: 1, unit_price: 100 }] });
    expect(first.status).toBe(200);
    const second = await importSales([{ sale_external_id: 'RYW-1', sale_state: 'CLOSED', product_id: 'P1', quantity: 2, unit_price: 100 }]);
    expect(second).toMatchObject({ accepted: 1, rejected: 0 });
    expect(await sale('RYW-1')).toMatchObject({ sale_state: 'CLOSED', sale_total: 200, sale_date: '2024-08-09T00:00:00.000000Z' });
  });

  it('shows the sales of a forgotten customer without its identifiers', async () => {
    await importSales([{ sale_external_id: 'F-1', sale_date: '2024-08-10', sale_phone_number: '+358 40 123 0000', sale_email: 'gone@example.com', product_id: 'P1', quantity: 1, unit_price: 700 }]);
    const forget = await send('POST', '/api/customers/upload/', { customers: [{ phone_number: '+358401230000', is_forgotten: true }] });
    await eventually(async () => expect((await send('GET', `/api/runs/${forget.body.run_id}/`)).body.state).toBe('completed'));
    const shown = await sale('F-1');
    expect(shown).toMatchObject({ is_forgotten: true, sale_total: 700 });
    expect(JSON.stringify(shown)).not.toMatch(/gone@example|123 0000|\$phone/);
  });

  it('rejects transactions without a date, a customer, or a consistent currency, and a transaction with a rejected row', async () => {
    const res = await send('POST', '/api/sales/upload/', {
      sales: [
        { sale_external_id: 'BAD-1', sale_customer_id: 'C1', product_id: 'P1', quantity: 1, unit_price: 100 },
        { sale_external_id: 'BAD-2', sale_date: '2024-08-06', product_id: 'P1', quantity: 1, unit_price: 100 },
        { sale_external_id: 'BAD-3', sale_date: '2024-08-06', sale_customer_id: 'C1', sale_currency: 'USD', product_id: 'P1', quantity: 1, unit_price: 100 },
        { sale_external_id: 'BAD-4', sale_date: '2024-08-06', sale_customer_id: 'C1', product_id: 'P1', quantity: 1, unit_price: 100 },
        { sale_external_id: 'BAD-4', product_id: 'P2', quantity: 1, unit_price: 12.5 },
        { sale_external_id: 'BAD-5', sale_date: '2024-08-06', sale_customer_id: 'C1', product_id: 'P1', quantity: 1, unit_price_in_currency: 100 },
        { sale_external_id: 'OK-1', sale_date: '2024-08-06', sale_customer_id: 'C1', product_id: 'P1', quantity: 1, unit_price: 100 },
        { product_id: 'P1', quantity: 1, unit_price: 100 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.errors.map((e: Json) => [e.index, e.field, e.code])).toEqual([
      [0, 'sale_date', 'required'],
      [1, 'sale_customer_id', 'missing_identifier'],
      [2, 'sale_exchange_rate', 'invalid_currency'],
      [3, null, 'transaction_rejected'],
      [4, 'unit_price', 'fractional_cents'],
      [5, 'unit_price_in_currency', 'invalid_currency'],
      [7, 'sale_external_id', 'required'],
    ]);
    expect(res.body.accepted).toBe(1);
    expect((await send('GET', '/api/data/sales/?sale_external_id=BAD-4')).body.sales).toEqual([]);
  });

  it('links sale rows to products by product_id, sku and ean, creating the missing ones with the row\'s details', async () => {
    await importSales([]);
    const products = await send('POST', '/api/products/upload/', { products: [{ external_id: 'SKU-MATCH', sku: 'AB-1', title: 'Imported' }] });
    await eventually(async () => {
      if ((await send('GET', `/api/runs/${products.body.run_id}/`)).body.state !== 'completed') throw new Error('not yet');
    });
    await importSales([
      { sale_external_id: 'L-1', sale_date: '2024-08-07', sale_customer_id: 'C1', product_id: 'NEW-P', product_title: 'Sold only', quantity: 1, unit_price: 4200 },
      { sale_external_id: 'L-1', product_sku: 'AB-1', quantity: 1, unit_price: 100 },
      { sale_external_id: 'L-1', product_sku: 'ZZ-9', product_ean: '6400000000031', quantity: 1, unit_price: 300 },
    ]);
    expect((await sale('L-1')).products.map((p: Json) => p.product_id)).toEqual(['NEW-P', 'SKU-MATCH', 'sku:ZZ-9/ean:6400000000031']);
    const all = (await send('GET', '/api/data/products/?limit=1000')).body.products.map((p: Json) => unstamped(p)) as Json[];
    expect(all.find((p) => p.external_id === 'NEW-P')).toEqual({ external_id: 'NEW-P', title: 'Sold only', price: 4200 });
    expect(all.find((p) => p.external_id === 'sku:ZZ-9/ean:6400000000031')).toEqual({ external_id: 'sku:ZZ-9/ean:6400000000031', sku: 'ZZ-9', ean: '6400000000031', price: 300 });
  });

  it('copies a row\'s title or name and its price to the product it creates, before the unit price paid', async () => {
    await importSales([
      { sale_external_id: 'L-2', sale_date: '2024-08-08', sale_customer_id: 'C1', product_id: 'ROW-TITLE', title: 'Trail shoe', price: 8900, quantity: 1, unit_price: 7900 },
      { sale_external_id: 'L-2', product_id: 'ROW-NAME', name: 'Rain jacket', quantity: 2, unit_price: 12900 },
      { sale_external_id: 'L-2', product_id: 'ROW-BOTH', product_title: 'Sock', name: 'Other', product_price: 500, price: 700, quantity: 1, unit_price: 450 },
    ]);
    const all = (await send('GET', '/api/data/products/?limit=1000')).body.products.map((p: Json) => unstamped(p)) as Json[];
    expect(['ROW-TITLE', 'ROW-NAME', 'ROW-BOTH'].map((id) => all.find((p) => p.external_id === id))).toEqual([
      { external_id: 'ROW-TITLE', title: 'Trail shoe', price: 8900 },
      { external_id: 'ROW-NAME', title: 'Rain jacket', price: 12900 },
      { external_id: 'ROW-BOTH', title: 'Sock', price: 500 },
    ]);
  });

  it('pages sales with next_url, null on the last page', async () => {
    await importSales(['PG-1', 'PG-2', 'PG-3'].map((id) => ({ sale_external_id: id, sale_date: '2024-09-01', sale_customer_id: 'PAGE-C', product_id: 'P1', quantity: 1, unit_price: 100 })));
    const pages = await followPages<Json>((path) => send('GET', path), '/api/data/sales/?sale_customer_id=PAGE-C&limit=2', 'sales');
    expect(pages.map((page) => page.map((s) => s.sale_external_id))).toEqual([['PG-1', 'PG-2'], ['PG-3']]);
    expect((await send('GET', '/api/data/sales/?sale_customer_id=NO-SUCH')).body).toEqual({ sales: [], count: 0, next_url: null });
  });

  it('answers PUT on the upload path as POST', async () => {
    const res = await send('PUT', '/api/sale/upload/', { sales: [{ sale_external_id: 'PUT-1', sale_date: '2024-08-08', sale_customer_id: 'C1', product_id: 'P1', quantity: 1, unit_price: 100 }] });
    expect(res.status).toBe(200);
    await eventually(async () => expect(await sale('PUT-1')).toMatchObject({ sale_total: 100 }));
  });

  it('answers the same after the sales and products projections are rebuilt', async () => {
    const snapshot = async () => ({
      sales: (await send('GET', '/api/data/sales/?limit=1000')).body.sales,
      products: (await send('GET', '/api/data/products/?limit=1000')).body.products,
    });
    const before = await snapshot();
    expect(before.sales.length).toBeGreaterThan(8);
    for (const p of [salesProjection, productsProjection]) await rebuildProjection(api.rt.runnerDeps(), p);
    expect(await snapshot()).toEqual(before);
  });
});
