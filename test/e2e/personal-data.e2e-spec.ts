import { randomUUID } from 'node:crypto';
import { CUSTOMERS_IMPORTED } from '#mds/customers';
import { customersProjection, eventsProjection, productsProjection, rebuildProjection, salesProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { storedEvents } from '../support/database';

type Json = Record<string, any>;

/**
 * Forgettable payloads: customer records' personal fields never enter the event log. They are kept
 * beside it (mds_personal_data) and merged back for every reader: retrieval, the audit API, a rebuild.
 */
describe('personal data kept apart from the log', () => {
  let api: TestApi;
  let token: string;
  const people = [
    { external_id: 'PD-1', email: 'ada.lovelace@example.com', phone_number: '+358401234567', first_name: 'Ada', last_name: 'Lovelace', street_address: 'Analytical Row 1', city: 'Espoo', zip_code: '02100', birth_date: '1815-12-10', cb_token: 'cbtok-ada-1', tags: ['vip'], country: 'FI' },
    { external_id: 'PD-2', email: 'charles.babbage@example.com', first_name: 'Charles', can_email: true },
    { email: 'guest.only@example.com' },
  ];
  const personalValues = ['ada.lovelace@example.com', '401234567', 'Lovelace', 'Analytical Row', 'Espoo', '1815-12-10', 'cbtok-ada-1', 'charles.babbage', 'Charles', 'guest.only'];

  const send = (method: string, path: string, body?: unknown) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  // Wherever the log is (mds_events, or EventStoreDB): the events holding the value, as stored.
  const holding = async (value: string) => (await storedEvents(api.rt.db.url)).filter((e) => e.data.includes(value)).map((e) => ({ type: e.type, data: e.data }));
  const inLog = async (value: string) => (await holding(value)).length;

  beforeAll(async () => {
    api = await startTestApi({ projections: [customersProjection, eventsProjection, salesProjection, productsProjection] });
    token = (await seedUserToken(api.rt, 'pd-admin', ['admin'])).token;
    const res = await send('POST', '/api/customers/upload/', { customers: people });
    expect(res.status).toBe(200);
    await eventually(async () => expect((await send('GET', `/api/runs/${res.body.run_id}/`)).body.state).toBe('completed'));
  });
  afterAll(async () => {
    await api?.close();
  });

  it('keeps no personal field in the log, and the rest there', async () => {
    for (const value of personalValues) {
      const found = await holding(value);
      expect([value, found]).toEqual([value, []]);
    }
    expect(await inLog('PD-1')).toBe(1); // the shop's key stays in the log
    expect(await inLog('"vip"')).toBe(1);
    const kept = (await api.rt.pool.query(`SELECT records FROM mds_personal_data`)).rows.map((r) => r.records);
    expect(kept).toEqual([[
      { email: 'ada.lovelace@example.com', phone_number: '+358401234567', $phone: '+358401234567', first_name: 'Ada', last_name: 'Lovelace', street_address: 'Analytical Row 1', city: 'Espoo', zip_code: '02100', birth_date: '1815-12-10', cb_token: 'cbtok-ada-1' },
      { email: 'charles.babbage@example.com', first_name: 'Charles' },
      { email: 'guest.only@example.com' },
    ]]);
  });

  it('gives every reader the records whole: retrieval, the audit API, the merge after a rebuild', async () => {
    const customers = (await send('GET', '/api/data/customers/')).body.customers as Json[];
    expect(customers).toEqual([
      expect.objectContaining({ external_id: 'PD-1', email: 'ada.lovelace@example.com', phone_number: '+358401234567', last_name: 'Lovelace', birth_date: '1815-12-10', tags: ['vip'] }),
      expect.objectContaining({ external_id: 'PD-2', email: 'charles.babbage@example.com', first_name: 'Charles', can_email: true }),
      expect.objectContaining({ email: 'guest.only@example.com' }),
    ]);
    const chunk = (await send('GET', `/api/audit/events/?type=${CUSTOMERS_IMPORTED}`)).body.events[0];
    expect(chunk.data.records[0]).toMatchObject({ external_id: 'PD-1', email: 'ada.lovelace@example.com', first_name: 'Ada' });
    const before = (await api.rt.pool.query(`SELECT c::text AS row FROM customers c ORDER BY customer_id`)).rows;
    await rebuildProjection(api.rt.runnerDeps(), customersProjection);
    expect((await api.rt.pool.query(`SELECT c::text AS row FROM customers c ORDER BY customer_id`)).rows).toEqual(before);
    // A later record finds the guest by the e-mail kept apart.
    const res = await send('POST', '/api/customers/upload/', { customers: [{ email: 'GUEST.ONLY@example.com', external_id: 'PD-3' }] });
    await eventually(async () => expect((await send('GET', `/api/runs/${res.body.run_id}/`)).body.state).toBe('completed'));
    expect((await send('GET', '/api/data/customers/?external_id=PD-3')).body.customers).toEqual([expect.objectContaining({ email: 'GUEST.ONLY@example.com' })]);
    expect((await send('GET', '/api/data/customers/')).body.count).toBe(3);
  });

  it('keeps the contact details of events and sales apart too, and shows them whole', async () => {
    const events = await send('POST', '/api/events/upload/', { events: [{ type: 'BROWSE', date: '2025-01-02T10:00:00Z', email: 'event.person@example.com', phone_number: '+358409876543', first_name: 'Evelyn', path: '/shoes' }] });
    const sales = await send('POST', '/api/sales/upload/', { sales: [{ sale_external_id: 'PD-S1', sale_date: '2025-01-03T10:00:00Z', sale_email: 'sale.person@example.com', sale_phone_number: '+358405550000', product_id: 'P1', quantity: 1, unit_price: 1000 }] });
    for (const res of [events, sales]) {
      expect(res.status).toBe(200);
      await eventually(async () => expect((await send('GET', `/api/runs/${res.body.run_id}/`)).body.state).toBe('completed'));
    }
    for (const value of ['event.person', '409876543', 'Evelyn', 'sale.person', '405550000']) expect([value, await inLog(value)]).toEqual([value, 0]);
    expect(await inLog('/shoes')).toBe(1);
    expect(await inLog('PD-S1')).toBe(1);
    expect((await send('GET', '/api/data/events/')).body.events).toEqual([expect.objectContaining({ email: 'event.person@example.com', phone_number: '+358409876543', first_name: 'Evelyn', path: '/shoes' })]);
    expect((await send('GET', '/api/data/sales/')).body.sales).toEqual([expect.objectContaining({ sale_external_id: 'PD-S1', sale_email: 'sale.person@example.com', sale_phone_number: '+358405550000' })]);
  });

  it('drops the personal fields of an append that fails, and keeps those of a retry', async () => {
    const stream = `import-${randomUUID()}`;
    await api.rt.store.append(stream, [{ type: 'ImportRunAccepted', data: {}, metadata: { schema: 1 } }]);
    const refused = api.rt.store.append(stream, [{ type: CUSTOMERS_IMPORTED, data: { records: [{ external_id: 'X', email: 'refused.append@example.com' }] }, metadata: { schema: 1 } }], { expectedRevision: 'no_stream' });
    await expect(refused).rejects.toThrow();
    expect(Number((await api.rt.pool.query(`SELECT count(*) FROM mds_personal_data WHERE records::text LIKE '%refused.append%'`)).rows[0].count)).toBe(0);
    const id = randomUUID();
    const event = { id, type: CUSTOMERS_IMPORTED, data: { records: [{ external_id: 'Y', email: 'retried.append@example.com' }] }, metadata: { schema: 1 } };
    await api.rt.store.append(`import-${randomUUID()}`, [event]);
    await api.rt.store.append(`import-${randomUUID()}`, [event]).catch(() => undefined); // the same id elsewhere: refused
    expect(Number((await api.rt.pool.query(`SELECT count(*) FROM mds_personal_data WHERE event_id = $1`, [id])).rows[0].count)).toBe(1);
    const [read] = (await api.rt.store.readAll({ filter: { types: [CUSTOMERS_IMPORTED] }, after: (await api.rt.store.headPosition()) - 1 })).events;
    expect(read.data).toEqual({ records: [{ external_id: 'Y', email: 'retried.append@example.com' }] });
  });
});
