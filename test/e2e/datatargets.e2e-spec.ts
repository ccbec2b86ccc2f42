import { createHmac } from 'node:crypto';
import { DeliveryWorker } from '#mds/outlet-worker';
import { customersProjection, datasyncProjection, datatargetsProjection, eventsProjection, productsProjection, rebuildProjection, salesProjection, waitForProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { startRawReceiver, startReceiver } from '../support/receiver';
import { DELIVERY_ATTEMPTED, isSensitiveHeader, MASK } from '#mds/datatargets';

type Json = Record<string, any>;

/** The permissions retrieval shows a customer with when it has none. */
const NO_PERMISSIONS = { can_email: false, can_post: false, can_profile: false, can_push: false, can_sms: false };

describe('datatargets, outlets and webhook delivery', () => {
  let api: TestApi;
  let token: string;
  let worker: DeliveryWorker;

  beforeAll(async () => {
    api = await startTestApi({
      projections: [customersProjection, productsProjection, eventsProjection, salesProjection, datatargetsProjection, datasyncProjection],
      env: { OUTLET_ALLOW_PRIVATE: 'true', OUTLET_POLL_MS: '20', OUTLET_BACKOFF_BASE_MS: '20', OUTLET_MAX_BACKOFF_MS: '100' },
    });
    token = (await seedUserToken(api.rt, 'targets', ['staff'])).token;
    worker = new DeliveryWorker(api.rt, api.rt.config.outlets, api.rt.logger);
    await worker.start();
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
  });

  const send = (method: string, path: string, body?: unknown) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const newTarget = async (name = 'queue') => {
    const res = await send('POST', '/api/datatargets/', { datatarget_type: 'messages', name });
    expect(res.status).toBe(200);
    return res.body.datatarget as Json;
  };
  const post = async (id: string, messages: unknown[]) => {
    const res = await send('POST', `/api/datatargets/${id}/post/`, { messages });
    expect(res.status).toBe(200);
    return res.body as Json;
  };
  const outletOf = async (id: string, outletId: string) => (await send('GET', `/api/datatargets/${id}/outlets/${outletId}/`)).body.outlet as Json;
  const logOf = async (id: string, outletId: string, query = '?order=ascending&limit=1000') => (await send('GET', `/api/datatargets/${id}/outlets/${outletId}/log/${query}`)).body as Json;

  it('creates, lists, changes and deletes datatargets', async () => {
    const created = await newTarget('orders');
    expect(created).toEqual({ id: expect.any(String), datatarget_type: 'messages', name: 'orders', description: '', created_at: expect.any(String), enabled: true, retention_days: null, outlets: [], last_message_number: 0 });
    const list = (await send('GET', '/api/datatargets/')).body;
    expect(list.datatargets.map((d: Json) => d.id)).toContain(created.id);
    // The whole list is one page, the last: next_url null as on every list.
    expect(list.next_url).toBeNull();
    const patched = await send('PATCH', `/api/datatargets/${created.id}/`, { name: 'orders 2', description: 'for the ERP' });
    expect(patched.body.datatarget).toMatchObject({ name: 'orders 2', description: 'for the ERP' });
    expect((await send('POST', '/api/datatargets/', { datatarget_type: 'fax', name: 'x' })).status).toBe(400);
    expect((await send('PATCH', `/api/datatargets/${created.id}/`, { colour: 'red' })).status).toBe(400);
    expect((await send('DELETE', `/api/datatargets/${created.id}/`)).body).toEqual({ deleted: true, id: created.id });
    expect((await send('GET', `/api/datatargets/${created.id}/`)).status).toBe(404);
    expect((await send('POST', `/api/datatargets/${created.id}/post/`, { messages: [{ a: 1 }] })).status).toBe(404);
  });

  it('numbers posted messages gap-free from 1 and serves them at once, also under concurrent posts', async () => {
    const target = await newTarget();
    expect((await send('GET', `/api/datatargets/${target.id}/retrieve/`)).body).toEqual({ messages: [] });
    expect(await post(target.id, [{ n: 1 }, { n: 2 }, { n: 3 }])).toEqual({ first_message_number: 1, messages_count: 3 });
    expect((await send('GET', `/api/datatargets/${target.id}/retrieve/`)).body).toEqual({ last_message_number: 3, messages: [{ n: 1 }, { n: 2 }, { n: 3 }] });
    expect((await send('GET', `/api/datatargets/${target.id}/retrieve/?after=1&limit=1`)).body).toEqual({ last_message_number: 2, messages: [{ n: 2 }] });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => post(target.id, Array.from({ length: 5 }, (_, j) => ({ post: i, j })))));
    const ranges = answers.map((a) => a.first_message_number).sort((a, b) => a - b);
    expect(ranges).toEqual(Array.from({ length: 12 }, (_, i) => 4 + i * 5));
    const all = (await send('GET', `/api/datatargets/${target.id}/retrieve/?limit=1000`)).body;
    expect(all.last_message_number).toBe(63);
    for (const a of answers) {
      const post = all.messages[a.first_message_number - 1].post;
      expect(all.messages.slice(a.first_message_number - 1, a.first_message_number + 4)).toEqual(Array.from({ length: 5 }, (_, j) => ({ post, j })));
    }
    expect((await send('GET', `/api/datatargets/${target.id}/`)).body.datatarget.last_message_number).toBe(63);
    for (const bad of [{ messages: [] }, { messages: [1] }, { messages: 'x' }, {}]) expect((await send('POST', `/api/datatargets/${target.id}/post/`, bad)).status).toBe(400);
    expect((await send('GET', `/api/datatargets/${target.id}/retrieve/?limit=0`)).status).toBe(400);
  });

  it('turns every imported change of a datasync datatarget\'s datatype into a message', async () => {
    const res = await send('POST', '/api/datatargets/', { datatarget_type: 'datasync', datatype: 'customers', name: 'crm sync' });
    const target = res.body.datatarget;
    expect(target).toMatchObject({ datatarget_type: 'datasync', datatype: 'customers' });
    const run = await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'DS-1', phone_number: '+358401111111' }, { external_id: 'DS-2', first_name: 'Ann' }] });
    const messages = await eventually(async () => {
      const body = (await send('GET', `/api/datatargets/${target.id}/retrieve/`)).body;
      if (body.messages.length < 2) throw new Error('not yet');
      return body.messages;
    });
    expect(messages).toEqual([
      { datatype: 'customers', change: { external_id: 'DS-1', phone_number: '+358401111111', ...NO_PERMISSIONS } },
      { datatype: 'customers', change: { external_id: 'DS-2', first_name: 'Ann', ...NO_PERMISSIONS } },
    ]);
    expect(run.status).toBe(200);
    expect((await send('POST', `/api/datatargets/${target.id}/post/`, { messages: [{ a: 1 }] })).status).toBe(409);
  });

  /** Runs a request that appends a run, and waits until every read model it feeds has applied it. */
  const completed = async (res: { status: number; body: Json }) => {
    expect([res.status, res.body.errors ?? []]).toEqual([200, []]);
    await eventually(async () => expect((await send('GET', `/api/runs/${res.body.run_id}/`)).body.state).toBe('completed'));
    return res.body;
  };
  /** A datasync datatarget's messages once there are `count` of them. */
  const synced = (id: string, count: number) =>
    eventually(async () => {
      const body = (await send('GET', `/api/datatargets/${id}/retrieve/?limit=1000`)).body;
      expect(body.messages.length).toBe(count);
      return body.messages.map((m: Json) => m.change) as Json[];
    });
  const datasync = async (datatype: string) => (await send('POST', '/api/datatargets/', { datatarget_type: 'datasync', datatype, name: `${datatype} sync` })).body.datatarget as Json;

  it('makes a message of every change of a customer, with the customer after it: imports, subscriptions, bulk updates, deletions, forgettings', async () => {
    // A customer changed while no datatarget synchronised customers: its first message after one is created has all of it.
    for (const t of (await send('GET', '/api/datatargets/')).body.datatargets as Json[]) {
      if (t.datatype === 'customers') expect((await send('DELETE', `/api/datatargets/${t.id}/`)).status).toBe(200);
    }
    await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'MS-OLD', first_name: 'Olli', tags: ['x'] }] }));
    await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'MS-OLD', 'tags.add': ['y'] }] }));
    const target = await datasync('customers');
    await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'MS-OLD', last_name: 'Old' }, { external_id: 'MS-OLD', 'tags.remove': ['x'] }] }));
    expect(await synced(target.id, 2)).toEqual([
      { external_id: 'MS-OLD', first_name: 'Olli', last_name: 'Old', tags: ['x', 'y'], ...NO_PERMISSIONS },
      { external_id: 'MS-OLD', first_name: 'Olli', last_name: 'Old', tags: ['y'], ...NO_PERMISSIONS },
    ]);
    await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'MS-1', email: 'ms1@example.com', first_name: 'Mia', gender: 'female', tags: ['a'] }, { external_id: 'MS-2', phone_number: '+358401231234' }] }));
    // A patch, then another of the same customer in the same request: each message is the whole customer after its change.
    await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'MS-1', last_name: 'Sun', 'tags.add': ['b'] }, { email: 'MS1@example.com', gender: '' }] }));
    // A subscription changes the customer; a browse does not.
    await completed(await send('POST', '/api/events/upload/', { events: [{ type: 'MAIL_SUBSCRIBE', date: '2024-05-01', customer_id: 'MS-1', mailing_lists: ['news'] }, { type: 'BROWSE', date: '2024-05-01', customer_id: 'MS-1', path: '/' }] }));
    await completed(await send('POST', '/api/data/query/', { datatype: 'customers', match: { external_id: ['MS-2', 'NOBODY'] }, update: { vip_level: 'gold' } }));
    await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'MS-2', is_deleted: true }] }));
    const mia = { external_id: 'MS-1', email: 'ms1@example.com', first_name: 'Mia', ...NO_PERMISSIONS };
    expect((await synced(target.id, 9)).slice(2)).toEqual([
      { ...mia, gender: 'female', tags: ['a'] },
      { external_id: 'MS-2', phone_number: '+358401231234', ...NO_PERMISSIONS },
      { ...mia, gender: 'female', last_name: 'Sun', tags: ['a', 'b'] },
      { ...mia, email: 'MS1@example.com', last_name: 'Sun', tags: ['a', 'b'] },
      { ...mia, email: 'MS1@example.com', last_name: 'Sun', tags: ['a', 'b'], can_email: true, mailing_lists: ['news'] },
      { external_id: 'MS-2', phone_number: '+358401231234', ...NO_PERMISSIONS, vip_level: 'gold' },
      { external_id: 'MS-2', phone_number: '+358401231234', is_deleted: true },
    ]);
    // Forgotten: a message saying which (by its external id), and the earlier ones keep nothing personal of them.
    await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'MS-1', is_forgotten: true }] }));
    const after = (await synced(target.id, 10)).slice(2);
    expect(after[7]).toEqual({ external_id: 'MS-1', is_forgotten: true });
    expect(JSON.stringify(after)).not.toMatch(/ms1@example|Mia|Sun/);
    const marker = expect.stringMatching(/^\[forgotten [0-9a-f]{12}\]$/);
    expect(after[3]).toEqual({ ...NO_PERMISSIONS, external_id: 'MS-1', email: marker, first_name: marker, last_name: marker, tags: ['a', 'b'] });
  });

  it('makes a message of every change of a product, an event and a sale, with the record after it, and of their deletions', async () => {
    const [products, events, sales] = [await datasync('products'), await datasync('events'), await datasync('sales')];
    await completed(await send('POST', '/api/products/upload/', { products: [{ external_id: 'DP-1', title: 'Boot', price: 100 }] }));
    await completed(await send('POST', '/api/products/upload/', { products: [{ external_id: 'DP-1', price: 90 }, { external_id: 'DP-1', language: 'fi', title: 'Saapas' }] }));
    // An event naming an unknown product creates it: a change of the products too.
    await completed(await send('POST', '/api/events/upload/', { events: [
      { type: 'BASKET_ADD', date: '2024-05-02', customer_id: 'DC-1', product_id: 'DP-NEW', product_title: 'New', label: 'ds' },
      { type: 'BROWSE', date: '2024-05-02', customer_id: 'DC-1', label: 'ds', path: '/boots' },
    ] }));
    await completed(await send('POST', '/api/data/query/', { datatype: 'products', match: { external_id: 'DP-1' }, update: { visible: false } }));
    expect(await synced(products.id, 6)).toEqual([
      { external_id: 'DP-1', title: 'Boot', price: 100 },
      { external_id: 'DP-1', title: 'Boot', price: 90 },
      { external_id: 'DP-1', language: 'fi', title: 'Saapas' },
      { external_id: 'DP-NEW', title: 'New' },
      { external_id: 'DP-1', title: 'Boot', price: 90, visible: false },
      { external_id: 'DP-1', language: 'fi', title: 'Saapas', visible: false },
    ]);
    const [basket, browse] = await synced(events.id, 2);
    expect([basket, browse]).toEqual([
      { id: expect.any(Number), type: 'BASKET_ADD', date: '2024-05-02T00:00:00.000000Z', customer_id: 'DC-1', product_id: 'DP-NEW', product_title: 'New', label: 'ds' },
      { id: expect.any(Number), type: 'BROWSE', date: '2024-05-02T00:00:00.000000Z', customer_id: 'DC-1', label: 'ds', path: '/boots' },
    ]);
    await completed(await send('POST', '/api/data/query/', { datatype: 'events', match: { label: 'ds' }, update: { reason: 'campaign' } }));
    await completed(await send('POST', '/api/events/upload/', [{ id: basket.id, is_deleted: true }]));
    await completed(await send('POST', '/api/data/query/', { datatype: 'events', match: { id: browse.id }, update: { is_deleted: true } }));
    expect((await synced(events.id, 6)).slice(2)).toEqual([
      { ...basket, reason: 'campaign' },
      { ...browse, reason: 'campaign' },
      { id: basket.id, is_deleted: true },
      { id: browse.id, is_deleted: true },
    ]);
    await completed(await send('POST', '/api/sales/upload/', { sales: [
      { sale_external_id: 'DS-S1', product_sku: 'SKU-DS', quantity: 1, unit_price: 90 },
      { sale_external_id: 'DS-S1', sale_date: '2024-05-03', sale_customer_id: 'DC-1', tags: ['gift'] },
    ] }));
    // Re-sent with only a state and its rows: the message has the transaction after it, date and customer included.
    await completed(await send('POST', '/api/sales/upload/', { sales: [{ sale_external_id: 'DS-S1', sale_state: 'processing', product_id: 'DP-1', quantity: 2, unit_price: 90 }] }));
    await completed(await send('POST', '/api/data/query/', { datatype: 'sales', match: { sale_external_id: 'DS-S1' }, update: { sale_state: 'cancelled' } }));
    await completed(await send('POST', '/api/data/query/', { datatype: 'sales', match: { sale_external_id: 'DS-S1' }, update: { is_deleted: true } }));
    const transaction = { sale_external_id: 'DS-S1', sale_date: '2024-05-03T00:00:00.000000Z', sale_customer_id: 'DC-1', tags: ['gift'] };
    const twoBoots = { ...transaction, sale_total: 180, products: [{ product_id: 'DP-1', quantity: 2, unit_price: 90, discount: 0, total: 180 }] };
    expect(await synced(sales.id, 4)).toEqual([
      { ...transaction, sale_state: 'COMPLETE', sale_total: 90, products: [{ product_sku: 'SKU-DS', product_id: 'sku:SKU-DS', quantity: 1, unit_price: 90, discount: 0, total: 90 }] },
      { ...twoBoots, sale_state: 'PROCESSING' },
      { ...twoBoots, sale_state: 'CANCELLED' },
      { sale_external_id: 'DS-S1', is_deleted: true },
    ]);
    // The synthetic product the sale's sku created is a change of the products too.
    expect((await synced(products.id, 7))[6]).toEqual({ external_id: 'sku:SKU-DS', sku: 'SKU-DS', price: 90 });
  });

  it('delivers batched messages through the template, in order, and logs each attempt', async () => {
    const receiver = await startReceiver();
    try {
      const target = await newTarget('batched');
      const created = await send('POST', `/api/datatargets/${target.id}/outlets/`, {
        outlet_type: 'webhook',
        max_batch_size: 2,
        request: { url: receiver.url, method: 'POST', headers: { 'X-Api-Key': 'receiver-key', 'X-Shop': 'web' }, format: 'json', content: { data: { items: '{(data)}' }, note: 'sent {(data)}' }, is_batched: true },
      });
      expect(created.status).toBe(200);
      const outlet = created.body.outlet;
      expect(outlet).toMatchObject({ outlet_type: 'webhook', enabled: true, is_batched: true, max_batch_size: 2, min_request_interval: '0', last_delivered_message_number: 0, delivered_batch_count: 0 });
      expect(outlet.request.headers).toEqual({ 'X-Api-Key': '***', 'X-Shop': 'web' });
      await post(target.id, [1, 2, 3, 4, 5].map((n) => ({ n })));
      await eventually(async () => expect(await outletOf(target.id, outlet.id)).toMatchObject({ last_delivered_message_number: 5, delivered_batch_count: 3 }));
      expect(receiver.received.map((r) => r.json.data.items.map((m: Json) => m.n))).toEqual([[1, 2], [3, 4], [5]]);
      expect(receiver.received[0].json.note).toBe('sent [{"n":1},{"n":2}]');
      expect(receiver.received[0].headers).toMatchObject({ 'x-api-key': 'receiver-key', 'x-shop': 'web', 'content-type': 'application/json' });
      const log = await logOf(target.id, outlet.id);
      expect(log).toMatchObject({ order: 'ascending', total_count: 3 });
      expect(log.entries.map((e: Json) => [e.entry_number, e.batch_number, e.batch_size, e.first_message_number, e.status, e.http_status])).toEqual([
        [1, 1, 2, 1, 'OK', 200],
        [2, 2, 2, 3, 'OK', 200],
        [3, 3, 1, 5, 'OK', 200],
      ]);
      expect(log.entries[0].date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      const one = (await send('GET', `/api/datatargets/${target.id}/outlets/${outlet.id}/log/1/`)).body.entry;
      expect(one.http_request).toContain('POST /hook');
      expect(one.http_request).not.toContain('receiver-key');
      expect(one.http_reply).toContain('200');
      // Paging: newest first by default, next_url to the next slice.
      const page = await logOf(target.id, outlet.id, '?limit=2');
      expect(page.entries.map((e: Json) => e.entry_number)).toEqual([3, 2]);
      const next = (await send('GET', page.next_url)).body;
      expect(next.entries.map((e: Json) => e.entry_number)).toEqual([1]);
      expect(next.next_url).toBeNull();
    } finally {
      await receiver.close();
    }
  });

  it('records attempts by reference and rebuilds each request from the messages, byte for byte what the receiver got', async () => {
    const receiver = await startRawReceiver();
    const secret = `whsec_${Buffer.from('another signing key of the test 1').toString('base64')}`;
    try {
      const target = await newTarget('by reference');
      const outlets = [
        { outlet_type: 'webhook', max_batch_size: 3, secret, request: { url: receiver.url, method: 'POST', headers: { 'X-Api-Key': 'receiver-key-123', 'X-Shop': 'web' }, format: 'json', content: { z: 1, data: { items: '{(data)}' }, note: 'sent {(data)}' }, is_batched: true } },
        { outlet_type: 'webhook', request: { url: receiver.url, method: 'PUT', format: 'json', content: '{(data)}', is_batched: false } },
      ];
      const ids: string[] = [];
      for (const o of outlets) ids.push((await send('POST', `/api/datatargets/${target.id}/outlets/`, o)).body.outlet.id);
      // The fifth message carries the first outlet's key, which its log masks wherever it shows.
      await post(target.id, [{ n: 1, name: 'Åsa Öberg', city: 'Göteborg' }, { n: 2, emoji: '🚀', nested: { b: [1, 2.5, null], a: 'x' } }, { n: 3 }, { n: 4, text: 'line\nbreak "quoted"' }, { n: 5, note: 'key receiver-key-123, twice: receiver-key-123' }]);
      await eventually(async () => {
        for (const id of ids) expect((await outletOf(target.id, id)).last_delivered_message_number).toBe(5);
      });
      // What the receiver got, with the values of credential headers masked as the log masks them.
      const masked = receiver.requests.map((raw) => {
        const end = raw.indexOf('\r\n\r\n');
        const lines = raw.slice(0, end).split('\r\n').map((line, i) => {
          const colon = line.indexOf(':');
          return i > 0 && isSensitiveHeader(line.slice(0, colon)) ? `${line.slice(0, colon)}: ${MASK}` : line;
        });
        const body = raw.slice(end + 4);
        return `${lines.join('\r\n')}\r\n\r\n${/\r\nX-Api-Key: /i.test(raw.slice(0, end)) ? body.split('receiver-key-123').join(MASK) : body}`;
      });
      const logged: string[] = [];
      for (const id of ids) {
        const entries = (await logOf(target.id, id)).entries as Json[];
        for (const e of entries) logged.push((await send('GET', `/api/datatargets/${target.id}/outlets/${id}/log/${e.entry_number}/`)).body.entry.http_request);
      }
      expect(logged).toHaveLength(2 + 5);
      expect(new Set(logged)).toEqual(new Set(masked));
      expect(logged.some((r) => r.includes('Göteborg') && r.includes('🚀'))).toBe(true);
      expect(logged.filter((r) => r.includes(`"note":"key ${MASK}, twice: ${MASK}"`))).toHaveLength(1);
      expect(logged.filter((r) => r.includes('receiver-key-123'))).toHaveLength(1); // the outlet without that key sent it as a plain value
      // The log keeps the head and the message numbers, not the body a second time.
      const attempts = (await api.rt.store.readAll({ filter: { types: [DELIVERY_ATTEMPTED], streams: ids.map((id) => `outlet-${id}`) }, limit: 100 })).events;
      expect(attempts).toHaveLength(7);
      for (const a of attempts) {
        const data = a.data as Json;
        expect(data.http_request).toBeUndefined();
        expect(data.request).toMatchObject({ head: expect.stringMatching(/^(POST|PUT) \/hook\?shop=web HTTP\/1\.1\r\n/), template: expect.stringMatching(/^[0-9a-f]{32}$/), messages: [expect.any(Number), expect.any(Number)] });
        expect(JSON.stringify(data)).not.toContain('Göteborg');
        expect(JSON.stringify(data)).not.toContain('receiver-key-123');
      }
      // The batch whose message carried the key keeps where it was masked, and still no copy of the body.
      // (The template places the messages twice: the key shows four times in that body.)
      const withMasks = attempts.map((a) => (a.data as Json).request).filter((r) => r.masks);
      expect(withMasks.map((r) => [r.messages, r.masks.map(([, length]: number[]) => length)])).toEqual([[[4, 5], [16, 16, 16, 16]]]);
      // The signed outlet's attempts keep the signature they sent; the other's have none.
      expect(attempts.map((a) => [a.stream === `outlet-${ids[0]}`, /^v1,/.test(String((a.data as Json).signature))])).toEqual(attempts.map((a) => [a.stream === `outlet-${ids[0]}`, a.stream === `outlet-${ids[0]}`]));
    } finally {
      await receiver.close();
    }
  });

  it('retries a failing batch with backoff, keeping later messages waiting: FAIL, FAIL, FAIL, OK', async () => {
    const receiver = await startReceiver({ plan: [500, 503, { status: 429, headers: { 'retry-after': '0' } }] });
    try {
      const target = await newTarget('flaky');
      const outlet = (await send('POST', `/api/datatargets/${target.id}/outlets/`, { outlet_type: 'webhook', request: { url: receiver.url, method: 'POST', format: 'json', content: '{(data)}', is_batched: true } })).body.outlet;
      await post(target.id, [{ n: 1 }, { n: 2 }]);
      await eventually(async () => expect((await outletOf(target.id, outlet.id)).last_delivered_message_number).toBe(2));
      await post(target.id, [{ n: 3 }]);
      await eventually(async () => expect((await outletOf(target.id, outlet.id)).last_delivered_message_number).toBe(3));
      const log = await logOf(target.id, outlet.id);
      expect(log.entries.map((e: Json) => [e.status, e.http_status, e.batch_number])).toEqual([
        ['FAIL', 500, 1], ['FAIL', 503, 1], ['FAIL', 429, 1], ['OK', 200, 1], ['OK', 200, 2],
      ]);
      expect(log.entries[0].fail_reason).toContain('500');
      expect(receiver.received.map((r) => r.json.map((m: Json) => m.n))).toEqual([[1, 2], [1, 2], [1, 2], [1, 2], [3]]);
      const ids = receiver.received.map((r) => r.headers['webhook-id']);
      expect(new Set(ids.slice(0, 4)).size).toBe(1);
      expect(ids[4]).not.toBe(ids[0]);
    } finally {
      await receiver.close();
    }
  });

  it('sends one request per message when not batched, throttled by min_request_interval, and signs them', async () => {
    const receiver = await startReceiver();
    const secret = `whsec_${Buffer.from('a signing key of the test 123456').toString('base64')}`;
    try {
      const target = await newTarget('single');
      const outlet = (await send('POST', `/api/datatargets/${target.id}/outlets/`, {
        outlet_type: 'webhook', min_request_interval: '0.2', secret,
        request: { url: receiver.url, method: 'PUT', format: 'json', content: { event: '{(data)}' }, is_batched: false },
      })).body.outlet;
      expect(outlet).toMatchObject({ is_batched: false, signed: true, min_request_interval: '0.2' });
      expect(JSON.stringify(outlet)).not.toContain('whsec_');
      await post(target.id, [{ n: 1 }, { n: 2 }, { n: 3 }]);
      await eventually(async () => expect((await outletOf(target.id, outlet.id)).last_delivered_message_number).toBe(3));
      expect(receiver.received.map((r) => [r.method, r.json.event.n])).toEqual([['PUT', 1], ['PUT', 2], ['PUT', 3]]);
      // The log's dates are taken just before each request: they are min_request_interval apart at least.
      const dates = (await logOf(target.id, outlet.id)).entries.map((e: Json) => Date.parse(e.date));
      for (let i = 1; i < 3; i++) expect(dates[i] - dates[i - 1]).toBeGreaterThanOrEqual(200);
      const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
      for (const r of receiver.received) {
        const expected = createHmac('sha256', key).update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`).digest('base64');
        expect(String(r.headers['webhook-signature']).split(' ')).toContain(`v1,${expected}`);
      }
      const entry = (await send('GET', `/api/datatargets/${target.id}/outlets/${outlet.id}/log/1/`)).body.entry;
      expect(entry.http_request).not.toContain(secret);
    } finally {
      await receiver.close();
    }
  });

  it('pauses, resumes and rewinds an outlet', async () => {
    const receiver = await startReceiver();
    try {
      const target = await newTarget('controlled');
      const outlet = (await send('POST', `/api/datatargets/${target.id}/outlets/`, { outlet_type: 'webhook', request: { url: receiver.url, method: 'POST', format: 'json', content: '{(data)}', is_batched: true } })).body.outlet;
      expect((await send('POST', `/api/datatargets/${target.id}/outlets/${outlet.id}/pause/`)).body.outlet).toMatchObject({ enabled: false, paused_reason: 'operator' });
      await post(target.id, [{ n: 1 }, { n: 2 }]);
      await new Promise((r) => setTimeout(r, 200));
      expect(receiver.received).toHaveLength(0);
      expect((await send('PATCH', `/api/datatargets/${target.id}/outlets/${outlet.id}/`, { enabled: true })).body.outlet.enabled).toBe(true);
      await eventually(async () => expect((await outletOf(target.id, outlet.id)).last_delivered_message_number).toBe(2));
      // Rewound while paused, so the answer shows the rewind before the worker can deliver again.
      await send('POST', `/api/datatargets/${target.id}/outlets/${outlet.id}/pause/`);
      const rewound = (await send('POST', `/api/datatargets/${target.id}/outlets/${outlet.id}/rewind/`, { to_message_number: 2 })).body.outlet;
      expect(rewound.last_delivered_message_number).toBe(1);
      await send('POST', `/api/datatargets/${target.id}/outlets/${outlet.id}/resume/`);
      await eventually(async () => expect((await outletOf(target.id, outlet.id)).last_delivered_message_number).toBe(2));
      expect(receiver.received.map((r) => r.json.map((m: Json) => m.n))).toEqual([[1, 2], [2]]);
      expect((await send('POST', `/api/datatargets/${target.id}/outlets/${outlet.id}/rewind/`, {})).status).toBe(400);
      expect((await send('POST', `/api/datatargets/${target.id}/outlets/${outlet.id}/explode/`)).status).toBe(404);
      expect((await send('GET', `/api/datatargets/${target.id}/outlets/`)).body).toEqual({ outlets: [expect.objectContaining({ id: outlet.id })], next_url: null });
      expect((await send('DELETE', `/api/datatargets/${target.id}/outlets/${outlet.id}/`)).status).toBe(200);
      expect((await send('GET', `/api/datatargets/${target.id}/outlets/${outlet.id}/`)).status).toBe(404);
    } finally {
      await receiver.close();
    }
  });

  it('holds every outlet of a disabled datatarget; posting still works, enabling delivers', async () => {
    const receiver = await startReceiver();
    try {
      const target = await newTarget('paused target');
      const outlet = (await send('POST', `/api/datatargets/${target.id}/outlets/`, { outlet_type: 'webhook', request: { url: receiver.url, content: '{(data)}', is_batched: true } })).body.outlet;
      expect((await send('PATCH', `/api/datatargets/${target.id}/`, { enabled: false })).body.datatarget.enabled).toBe(false);
      expect(await post(target.id, [{ n: 1 }])).toEqual({ first_message_number: 1, messages_count: 1 });
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.received).toHaveLength(0);
      expect((await send('PATCH', `/api/datatargets/${target.id}/`, { enabled: true })).body.datatarget.enabled).toBe(true);
      await eventually(async () => expect((await outletOf(target.id, outlet.id)).last_delivered_message_number).toBe(1));
      expect(receiver.received.map((r) => r.json)).toEqual([[{ n: 1 }]]);
    } finally {
      await receiver.close();
    }
  });

  it('refuses outlet definitions that cannot work', async () => {
    const target = await newTarget('bad outlets');
    for (const body of [
      { outlet_type: 'email', request: { url: 'http://example.com/' } },
      { outlet_type: 'webhook', request: { url: 'ftp://example.com/' } },
      { outlet_type: 'webhook', request: { url: 'not a url' } },
      { outlet_type: 'webhook', request: { url: 'https://user:pw@example.com/' } },
      { outlet_type: 'webhook', request: { url: 'https://example.com/', method: 'TRACE' } },
      { outlet_type: 'webhook', request: { url: 'https://example.com/', headers: { Host: 'x' } } },
      { outlet_type: 'webhook', request: { url: 'https://example.com/', format: 'xml' } },
      { outlet_type: 'webhook', request: { url: 'https://example.com/' }, max_batch_size: 0 },
      { outlet_type: 'webhook', request: { url: 'https://example.com/' }, secret: 'short' },
    ]) {
      const res = await send('POST', `/api/datatargets/${target.id}/outlets/`, body);
      expect([res.status, res.body.error?.code]).toEqual([400, 'invalid_request']);
    }
  });

  it('never requests a private address unless allowed, and says so in the log', async () => {
    const receiver = await startReceiver();
    const strict = new DeliveryWorker(api.rt, { ...api.rt.config.outlets, allowPrivate: false }, api.rt.logger);
    await worker.stop();
    await strict.start();
    try {
      const target = await newTarget('ssrf');
      const p = receiver.port;
      const urls = [
        `http://127.0.0.1:${p}/hook`, `http://localhost:${p}/hook`, `http://[::1]:${p}/hook`, `http://[::ffff:127.0.0.1]:${p}/hook`,
        `http://2130706433:${p}/hook`, `http://0177.0.0.1:${p}/hook`, `http://0.0.0.0:${p}/hook`, 'http://10.0.0.1/hook', 'http://169.254.169.254/latest/meta-data/',
      ];
      const outlets: string[] = [];
      for (const url of urls) outlets.push((await send('POST', `/api/datatargets/${target.id}/outlets/`, { outlet_type: 'webhook', request: { url, method: 'POST', content: '{(data)}', is_batched: true } })).body.outlet.id);
      await post(target.id, [{ n: 1 }]);
      for (const [i, outletId] of outlets.entries()) {
        const entry = await eventually(async () => {
          const log = await logOf(target.id, outletId);
          if (log.entries.length === 0) throw new Error(`no attempt yet for ${urls[i]}`);
          return log.entries[0];
        });
        expect([urls[i], entry.status, entry.http_request_available]).toEqual([urls[i], 'FAIL', false]);
        expect(entry.fail_reason).toMatch(/refused/);
        expect(entry.http_status).toBeUndefined();
      }
      expect(receiver.received).toHaveLength(0);
    } finally {
      await strict.stop();
      worker = new DeliveryWorker(api.rt, api.rt.config.outlets, api.rt.logger);
      await worker.start();
      await receiver.close();
    }
  });

  it('rebuilding the datatargets projection reproduces the outlet logs and messages', async () => {
    const snapshot = async () => {
      const targets = (await send('GET', '/api/datatargets/')).body.datatargets as Json[];
      const out: unknown[] = [];
      for (const t of targets) {
        out.push(t, (await send('GET', `/api/datatargets/${t.id}/retrieve/?limit=1000`)).body);
        for (const o of t.outlets) out.push(await logOf(t.id, o.id));
      }
      return out;
    };
    await worker.stop();
    // Every attempt the worker recorded is in the log; the snapshot is taken once the read model has it all.
    const head = await api.rt.store.headPosition();
    for (const name of ['datatargets', 'datasync']) await waitForProjection(api.rt.pool, name, head);
    const before = await snapshot();
    expect(JSON.stringify(before)).toContain('"status":"FAIL"');
    await rebuildProjection(api.rt.runnerDeps(), datatargetsProjection);
    await rebuildProjection(api.rt.runnerDeps(), datasyncProjection);
    expect(await snapshot()).toEqual(before);
    worker = new DeliveryWorker(api.rt, api.rt.config.outlets, api.rt.logger);
    await worker.start();
  });
});
