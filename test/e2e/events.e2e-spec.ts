import { customersProjection, eventsProjection, productsProjection, rebuildProjection, salesProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { unstamped } from '../support/records';
import { followPages } from '../support/paging';

type Json = Record<string, any>;

describe('customer events over HTTP', () => {
  let api: TestApi;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: [customersProjection, productsProjection, eventsProjection, salesProjection] });
    token = (await seedUserToken(api.rt, 'events', ['admin'])).token;
  });
  afterAll(async () => {
    await api?.close();
  });

  const send = (method: string, path: string, body?: unknown) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

  async function completed(res: { status: number; body: Json }) {
    expect(res.status).toBe(200);
    await eventually(async () => {
      const run = await send('GET', `/api/runs/${res.body.run_id}/`);
      if (run.body.state !== 'completed') throw new Error(run.body.state);
    });
    return res.body;
  }
  const importEvents = async (body: unknown) => completed(await send('POST', '/api/events/upload/', body));
  // What these tests read of records, without updated_at (test/e2e/reads.e2e-spec.ts covers it); events keep their id.
  const events = async (query: string) => ((await send('GET', `/api/data/events/${query}`)).body.events as Json[]).map((e) => unstamped(e, { keepId: true }));
  const customer = async (query: string) => ((await send('GET', `/api/data/customers/${query}`)).body.customers as Json[]).map((c) => unstamped(c));

  it('checks every type\'s requirements and accepts the bare list the guide sends', async () => {
    const date = '2024-03-01T10:00:00.000000Z';
    const answer = await importEvents([
      { type: 'BROWSE', date, email: 'a@example.com', path: '/shoes' },
      { type: 'BROWSE', date, email: 'a@example.com' },
      { type: 'MAIL_SUBSCRIBE', date, email: 'a@example.com' },
      { type: 'MAIL_UNSUBSCRIBE', date, email: 'a@example.com', mailing_lists: [] },
      { type: 'ORDER_SHIPPED', date, customer_id: 'C1', sale_id: 'S1' },
      { type: 'ORDER_SHIPPED', date, customer_id: 'C1', sale_id: 'S1', tracking_number: 'JJD0001' },
      { type: 'SENTIMENT', date, phone_number: '+358401234567', sentiment_value: 7.5 },
      { type: 'sentiment', date, phone_number: '+358401234567', sentiment_value: '8' },
      { type: 'BASKET_ADD', date, customer_token: 'tok-1' },
      { type: 'TELEPORT', date, email: 'a@example.com' },
      { type: 'BROWSE', date, label: 'Home' },
      { type: 'BROWSE', email: 'a@example.com', label: 'Home' },
      { type: 'BROWSE', date: 'yesterday', email: 'a@example.com', label: 'Home' },
      { type: 'BROWSE', date, email: 'a@example.com', label: 'Home', ACME__campaign_group: 'spring' },
    ]);
    expect(answer.accepted).toBe(4);
    expect(answer.errors.map((e: Json) => [e.index, e.field, e.code])).toEqual([
      [1, null, 'required'],
      [2, 'mailing_lists', 'required'],
      [3, 'mailing_lists', 'required'],
      [4, 'tracking_number', 'required'],
      [6, 'sentiment_value', 'invalid_integer'],
      [8, 'product_id', 'required'],
      [9, 'type', 'unknown_event_type'],
      [10, null, 'missing_identifier'],
      [11, 'date', 'required'],
      [12, 'date', 'invalid_datetime'],
    ]);
    const stored = await events('?email=A@example.com');
    expect(stored.map((e) => e.type)).toEqual(['BROWSE', 'BROWSE']);
    expect(stored[1]).toMatchObject({ label: 'Home', ACME__campaign_group: 'spring', date });
    expect(stored.every((e) => Number.isInteger(e.id) && e.id > 0)).toBe(true);
    expect(await events('?ACME__campaign_group=spring')).toEqual([stored[1]]);
    const sentiment = await events('?type=SENTIMENT');
    expect(sentiment).toEqual([expect.objectContaining({ sentiment_value: 8, phone_number: '+358401234567' })]);
  });

  it('accepts the settings\' custom event types and refuses them before they are configured', async () => {
    const body = { events: [{ type: 'STORE_VISIT', date: '2024-03-02', customer_id: 'C9', ACME__store: 'Helsinki' }] };
    const refused = await send('POST', '/api/events/upload/', body);
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0].code).toBe('unknown_event_type');
    expect((await send('PATCH', '/api/settings/', { custom_event_types: ['STORE_VISIT'] })).status).toBe(200);
    await importEvents(body);
    expect(await events('?type=STORE_VISIT')).toEqual([expect.objectContaining({ customer_id: 'C9', ACME__store: 'Helsinki', date: '2024-03-02T00:00:00.000000Z' })]);
  });

  it('deletes events by the ids retrieval shows; unknown ids are record errors', async () => {
    await importEvents({ events: [1, 2, 3].map((n) => ({ type: 'BROWSE', date: '2024-04-01', customer_id: 'DEL', label: `page-${n}` })) });
    const before = await events('?customer_id=DEL');
    expect(before.map((e) => e.label)).toEqual(['page-1', 'page-2', 'page-3']);
    const answer = await importEvents([{ id: before[1].id, is_deleted: true }, { id: 99_999_999, is_deleted: true }, { id: before[0].id, is_deleted: true, label: 'x' }]);
    expect(answer.accepted).toBe(1);
    expect(answer.errors.map((e: Json) => [e.index, e.code])).toEqual([[1, 'not_found'], [2, 'invalid_field']]);
    expect((await events('?customer_id=DEL')).map((e) => e.label)).toEqual(['page-1', 'page-3']);
  });

  it('applies subscriptions to customers in log order: subscribe creates, unsubscribe never does', async () => {
    await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'SUB-1', email: 'sub1@example.com', mailing_lists: ['news'] }] }));
    await importEvents([
      { type: 'MAIL_SUBSCRIBE', date: '2024-05-01', email: 'sub1@example.com', mailing_lists: ['offers', 'news'] },
      { type: 'MAIL_SUBSCRIBE', date: '2024-05-01', email: 'new@example.com', mailing_lists: ['news'], first_name: 'Nina' },
      { type: 'MAIL_UNSUBSCRIBE', date: '2024-05-02', email: 'ghost@example.com', mailing_lists: ['_'] },
      { type: 'SMS_UNSUBSCRIBE', date: '2024-05-02', phone_number: '+358409999999' },
      { type: 'SMS_SUBSCRIBE', date: '2024-05-03', phone_number: '+358 40 111 2222' },
      { type: 'MAIL_UNSUBSCRIBE', date: '2024-05-04', customer_id: 'SUB-1', mailing_lists: ['news'] },
    ]);
    expect(await customer('?external_id=SUB-1')).toEqual([expect.objectContaining({ can_email: true, mailing_lists: ['offers'] })]);
    expect(await customer('?email=new@example.com')).toEqual([expect.objectContaining({ email: 'new@example.com', first_name: 'Nina', can_email: true, mailing_lists: ['news'] })]);
    expect(await customer('?email=ghost@example.com')).toEqual([]);
    expect(await customer('?phone_number=%2B358409999999')).toEqual([]);
    expect(await customer('?phone_number=%2B358%2040%20111%202222')).toEqual([expect.objectContaining({ can_sms: true })]);
    // Every list at once, then an SMS opt-out found through the customer token.
    await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'SUB-2', cb_token: 'tok-sub-2', can_sms: true, phone_number: '+358405550000' }] }));
    await importEvents([
      { type: 'MAIL_UNSUBSCRIBE', date: '2024-05-05', customer_id: 'SUB-1', mailing_lists: ['_'] },
      { type: 'SMS_UNSUBSCRIBE', date: '2024-05-05', customer_token: 'tok-sub-2' },
    ]);
    expect(await customer('?external_id=SUB-1')).toEqual([expect.objectContaining({ can_email: false, mailing_lists: [] })]);
    expect(await customer('?external_id=SUB-2')).toEqual([expect.objectContaining({ can_sms: false })]);
  });

  it('links an ORDER_SHIPPED event to the transaction its sale_id names, readable from the sale and from the event; an unknown sale_id is a warning', async () => {
    const sales = async (rows: Json[]) => completed(await send('POST', '/api/sales/upload/', { sales: rows }));
    const saleOf = async (id: string) => (await send('GET', `/api/data/sales/?sale_external_id=${id}`)).body.sales[0] as Json;
    await sales([{ sale_external_id: 'SHIP-1', sale_date: '2024-03-02', sale_customer_id: 'SHIP-C', product_id: 'P1', quantity: 1, unit_price: 1000 }]);
    const answer = await importEvents({ events: [
      { type: 'ORDER_SHIPPED', date: '2024-03-03T08:00:00.000000Z', customer_id: 'SHIP-C', sale_id: 'SHIP-1', tracking_number: 'JJD01' },
      { type: 'ORDER_SHIPPED', date: '2024-03-04T08:00:00.000000Z', customer_id: 'SHIP-C', sale_id: 'SHIP-2', tracking_number: 'JJD02' },
      { type: 'ORDER_SHIPPED', date: '2024-03-05T08:00:00.000000Z', customer_id: 'SHIP-C', sale_id: 'SHIP-1', tracking_number: 'JJD03' },
    ] });
    expect(answer).toMatchObject({ accepted: 3, rejected: 0, errors: [] });
    expect(answer.warnings).toEqual([{ index: 1, field: 'sale_id', code: 'unknown_sale', message: expect.stringContaining('"SHIP-2"') }]);
    expect((await send('GET', `/api/runs/${answer.run_id}/`)).body.warnings).toEqual(answer.warnings);
    const shipped = await events('?customer_id=SHIP-C');
    expect(shipped.map((e) => e.sale)).toEqual([
      { sale_external_id: 'SHIP-1', sale_date: '2024-03-02T00:00:00.000000Z', sale_state: 'COMPLETE', sale_total: 1000 },
      undefined,
      { sale_external_id: 'SHIP-1', sale_date: '2024-03-02T00:00:00.000000Z', sale_state: 'COMPLETE', sale_total: 1000 },
    ]);
    expect((await saleOf('SHIP-1')).shipments).toEqual([
      { id: shipped[0].id, date: '2024-03-03T08:00:00.000000Z', tracking_number: 'JJD01' },
      { id: shipped[2].id, date: '2024-03-05T08:00:00.000000Z', tracking_number: 'JJD03' },
    ]);
    expect((await events('?sale_id=SHIP-1')).map((e) => e.tracking_number)).toEqual(['JJD01', 'JJD03']);
    // The sale a shipment named before it was imported is linked once it is; a deleted shipment leaves the sale.
    await sales([{ sale_external_id: 'SHIP-2', sale_date: '2024-03-01', sale_customer_id: 'SHIP-C', sale_state: 'processing', product_id: 'P1', quantity: 1, unit_price: 500 }]);
    expect((await events('?sale_id=SHIP-2'))[0].sale).toEqual({ sale_external_id: 'SHIP-2', sale_date: '2024-03-01T00:00:00.000000Z', sale_state: 'PROCESSING', sale_total: 500 });
    expect((await saleOf('SHIP-2')).shipments).toEqual([{ id: shipped[1].id, date: '2024-03-04T08:00:00.000000Z', tracking_number: 'JJD02' }]);
    await importEvents([{ id: shipped[0].id, is_deleted: true }]);
    expect((await saleOf('SHIP-1')).shipments.map((s: Json) => s.tracking_number)).toEqual(['JJD03']);
  });

  it('keeps events of unknown customers and links them once the customer arrives', async () => {
    await importEvents([{ type: 'BROWSE', date: '2024-06-01', email: 'later@example.com', path: '/a' }, { type: 'BROWSE', date: '2024-06-02', phone_number: '+358407770000', path: '/b' }]);
    expect(await events('?customer=LATER-1')).toEqual([]);
    await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'LATER-1', email: 'Later@Example.com', phone_number: '+358407770000' }] }));
    expect((await events('?customer=LATER-1')).map((e) => e.path)).toEqual(['/a', '/b']);
    // Once the customer is forgotten, its events keep only what is not personal.
    await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'LATER-1', is_forgotten: true }] }));
    expect(await events('?path=/a')).toEqual([{ id: expect.any(Number), type: 'BROWSE', date: '2024-06-01T00:00:00.000000Z', is_forgotten: true }]);
    expect(await events('?path=/b')).toEqual([expect.objectContaining({ is_forgotten: true })]);
    expect(JSON.stringify(await events('?limit=10000'))).not.toMatch(/later@example\.com|358407770000/);
  });

  it('links products: an unknown product_id is created with the event\'s details, an unknown ean gets a synthetic product', async () => {
    await completed(await send('POST', '/api/products/upload/', { products: [{ external_id: 'P-EAN', ean: '6400000000017', title: 'Imported' }] }));
    await importEvents([
      { type: 'BASKET_ADD', date: '2024-07-01', customer_id: 'C-P', product_id: 'P-NEW', product_title: 'From event', product_price: 1299 },
      { type: 'BROWSE', date: '2024-07-01', customer_id: 'C-P', product_ean: '6400000000017' },
      { type: 'BROWSE', date: '2024-07-01', customer_id: 'C-P', product_ean: '6400000000024' },
    ]);
    const products = (await send('GET', '/api/data/products/?limit=100')).body.products.map((p: Json) => unstamped(p)) as Json[];
    expect(products.find((p) => p.external_id === 'P-NEW')).toEqual({ external_id: 'P-NEW', title: 'From event', price: 1299 });
    expect(products.find((p) => p.external_id === 'ean:6400000000024')).toEqual({ external_id: 'ean:6400000000024', ean: '6400000000024' });
    expect(products.filter((p) => p.ean === '6400000000017').map((p) => p.external_id)).toEqual(['P-EAN']);
    expect((await events('?customer_id=C-P')).map((e) => e.product_id)).toEqual(['P-NEW', 'P-EAN', 'ean:6400000000024']);
    // A product imported later with that ean is its own product; the events stay linked as they were.
    await completed(await send('POST', '/api/products/upload/', { products: [{ external_id: 'P-LATE', ean: '6400000000024' }] }));
    expect((await events('?customer_id=C-P')).map((e) => e.product_id)).toEqual(['P-NEW', 'P-EAN', 'ean:6400000000024']);
    // A later import of the auto-created product fills it in.
    await completed(await send('POST', '/api/products/upload/', { products: [{ external_id: 'P-NEW', title: 'Real title' }] }));
    expect((await send('GET', '/api/data/products/?external_id=P-NEW')).body.products.map((p: Json) => unstamped(p))).toEqual([{ external_id: 'P-NEW', title: 'Real title', price: 1299 }]);
  });

  it('copies an event\'s title, name and price to the product it creates, product_title and product_price first', async () => {
    await importEvents([
      { type: 'BASKET_ADD', date: '2024-07-05', customer_id: 'C-T', product_id: 'P-TITLE', title: 'Trail shoe', price: 8900 },
      { type: 'BASKET_ADD', date: '2024-07-05', customer_id: 'C-T', product_id: 'P-NAME', name: 'Rain jacket', price: 12900 },
      { type: 'BASKET_ADD', date: '2024-07-05', customer_id: 'C-T', product_id: 'P-BOTH', product_title: 'Sock', title: 'Other', product_price: 500, price: 700 },
      // A price that is not whole cents is not a product price.
      { type: 'BASKET_ADD', date: '2024-07-05', customer_id: 'C-T', product_id: 'P-EUROS', name: 'Cap', price: '19.90' },
    ]);
    const created = async (id: string) => (await send('GET', `/api/data/products/?external_id=${id}`)).body.products.map((p: Json) => unstamped(p));
    expect(await created('P-TITLE')).toEqual([{ external_id: 'P-TITLE', title: 'Trail shoe', price: 8900 }]);
    expect(await created('P-NAME')).toEqual([{ external_id: 'P-NAME', title: 'Rain jacket', price: 12900 }]);
    expect(await created('P-BOTH')).toEqual([{ external_id: 'P-BOTH', title: 'Sock', price: 500 }]);
    expect(await created('P-EUROS')).toEqual([{ external_id: 'P-EUROS', title: 'Cap' }]);
  });

  it('looks products up by ean among imported ones: an auto-created product counts once it is imported', async () => {
    // Auto-created from an event, with the event's ean (an event with just that ean would not find it: a synthetic product and a sticky link).
    await importEvents([{ type: 'BASKET_ADD', date: '2024-07-02', customer_id: 'C-Q', product_id: 'P-AUTO', product_ean: '6400000000031' }]);
    // Imported now: the next event with the ean finds it.
    await completed(await send('POST', '/api/products/upload/', { products: [{ external_id: 'P-AUTO', title: 'Imported later' }] }));
    await importEvents([{ type: 'BROWSE', date: '2024-07-04', customer_id: 'C-Q', product_ean: '6400000000031' }]);
    expect((await events('?customer_id=C-Q')).map((e) => e.product_id)).toEqual(['P-AUTO', 'P-AUTO']);
    expect((await send('GET', '/api/data/products/?external_id=P-AUTO')).body.products.map((p: Json) => unstamped(p))).toEqual([{ external_id: 'P-AUTO', ean: '6400000000031', title: 'Imported later' }]);
  });

  it('pages events with next_url, null on the last page', async () => {
    await importEvents(Array.from({ length: 5 }, (_, i) => ({ type: 'BROWSE', date: '2024-09-01', customer_id: 'PAGE-C', label: `p${i}` })));
    const pages = await followPages<Json>((path) => send('GET', path), '/api/data/events/?customer_id=PAGE-C&limit=2', 'events');
    expect(pages.map((page) => page.map((e) => e.label))).toEqual([['p0', 'p1'], ['p2', 'p3'], ['p4']]);
    expect((await send('GET', '/api/data/events/?customer_id=NO-SUCH')).body).toEqual({ events: [], count: 0, next_url: null });
  });

  it('answers PUT on the upload path as POST', async () => {
    const res = await send('PUT', '/api/event/upload/', [{ type: 'BROWSE', date: '2024-08-01', customer_id: 'PUT-C', label: 'put' }]);
    expect(res.status).toBe(200);
    await eventually(async () => expect((await events('?customer_id=PUT-C')).map((e) => e.label)).toEqual(['put']));
  });

  it('refuses a body that is neither {events: [...]} nor a list', async () => {
    const res = await send('POST', '/api/events/upload/', { event: [] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  it('shows the same event ids, customers and auto-created products after every projection is rebuilt', async () => {
    const snapshot = async () => ({
      events: await events('?limit=10000'),
      customers: await customer('?limit=10000'),
      products: (await send('GET', '/api/data/products/?limit=10000')).body.products,
    });
    const before = await snapshot();
    expect(before.events.length).toBeGreaterThan(10);
    for (const p of [eventsProjection, customersProjection, productsProjection]) await rebuildProjection(api.rt.runnerDeps(), p);
    expect(await snapshot()).toEqual(before);
  });
});
