import { customersProjection, eventsProjection, productsProjection, salesProjection, shopsProjection } from '#mds/projections';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';

/** Reads that behave as users expect: strict query parameters, filters read as imports read, one record by its id, waiting for a run. */
describe('reads over HTTP', () => {
  let api: TestApi;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: [customersProjection, productsProjection, eventsProjection, salesProjection, shopsProjection] });
    token = (await seedUserToken(api.rt, 'reader', ['admin'])).token;
    expect((await send('PATCH', '/api/settings/', { timezone: 'Europe/Helsinki', default_country: 'FI', company_prefixes: ['ACME'] })).status).toBe(200);
    await imported('/api/customers/upload/', {
      customers: [
        { external_id: 'C-1', email: 'Ada@Example.com', phone_number: '040 765 4321', can_email: 'yes', ACME__tier: 'gold', date_joined: '2024-03-01 12:30:00' },
        { external_id: 'C-2', email: 'bo@example.com', can_email: false },
      ],
    });
    await imported('/api/products/upload/', { products: [{ external_id: 'P-1', title: 'Shoe', price: 500 }, { external_id: 'P-1', language: 'fi', title: 'Kenkä', price: 500 }] });
    await imported('/api/shops/upload/', { shops: [{ external_id: 'S-1', name: 'Main' }] });
    await imported('/api/sales/upload/', {
      sales: [
        { sale_external_id: 'T-1', sale_date: '2026-03-01', sale_customer_id: 'C-1', sale_state: 'wc-completed', product_id: 'P-1', quantity: 1, unit_price: 500, total: 500 },
        { sale_external_id: 'T-2', sale_date: '2026-03-02', sale_customer_id: 'C-2', sale_state: 'PENDING', product_id: 'P-1', quantity: 1, unit_price: 500, total: 500 },
      ],
    });
    await imported('/api/events/upload/', { events: [{ type: 'basket_add', date: '2026-03-01T10:00:00Z', customer_id: 'C-1', product_id: 'P-1' }, { type: 'BROWSE', date: '2026-03-01', customer_id: 'C-2', path: '/shoes' }] });
  });
  afterAll(async () => {
    await api?.close();
  });

  function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    return api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  async function imported(path: string, body: unknown) {
    const res = await send('POST', path, body);
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([]);
    await eventually(async () => {
      const run = await send('GET', `/api/runs/${res.body.run_id}/`);
      if (run.body.state !== 'completed') throw new Error(`run ${run.body.state}`);
    });
  }

  describe('unknown query parameters', () => {
    it.each([
      ['/api/data/customers/?sort=email', 'sort', 'email'],
      ['/api/data/customers/?emial=ada@example.com', 'emial', 'phone_number'],
      ['/api/data/events/?typ=BROWSE', 'typ', 'customer_token'],
      ['/api/data/sales/?state=COMPLETE', 'state', 'sale_state'],
      ['/api/data/products/?titel=Shoe', 'titel', 'title'],
      ['/api/data/shops/?nme=Main', 'nme', 'name'],
      ['/api/datatargets/?page=2', 'page', 'access-token'],
      ['/api/data/customers/C-1/?verbose=1', 'verbose', 'access-token'],
    ])('GET %s is a 400 naming %s and listing the accepted ones', async (path, unknown, acceptedOne) => {
      const res = await send('GET', path);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.message).toContain(`"${unknown}"`);
      expect(res.body.error.message).toMatch(new RegExp(`accepted: .*\\b${acceptedOne}\\b`));
    });

    it('a field that is a sale row\'s is not a transaction filter, and a company field is', async () => {
      expect((await send('GET', '/api/data/sales/?unit_price=500')).status).toBe(400);
      const res = await send('GET', '/api/data/customers/?ACME__tier=gold');
      expect(res.status).toBe(200);
      expect(res.body.customers.map((c: { external_id: string }) => c.external_id)).toEqual(['C-1']);
    });
  });

  describe('filter values are read as the import reads them', () => {
    it.each([
      ['/api/data/events/?type=basket_add', 'events', 'type', ['BASKET_ADD']],
      ['/api/data/sales/?sale_state=complete', 'sales', 'sale_external_id', ['T-1']],
      ['/api/data/sales/?sale_state=wc-completed', 'sales', 'sale_external_id', ['T-1']],
      ['/api/data/sales/?sale_state=pending', 'sales', 'sale_external_id', ['T-2']],
      ['/api/data/customers/?email=ADA@example.COM', 'customers', 'external_id', ['C-1']],
      ['/api/data/customers/?phone_number=%2B358407654321', 'customers', 'external_id', ['C-1']],
      ['/api/data/customers/?phone_number=040%20765%204321', 'customers', 'external_id', ['C-1']],
      ['/api/data/customers/?can_email=1', 'customers', 'external_id', ['C-1']],
      ['/api/data/customers/?can_email=no', 'customers', 'external_id', ['C-2']],
      ['/api/data/customers/?date_joined=2024-03-01T12:30:00', 'customers', 'external_id', ['C-1']],
      ['/api/data/products/?price=500&language=fi', 'products', 'title', ['Kenkä']],
    ])('GET %s finds what the import stored', async (path, list, field, expected) => {
      const res = await send('GET', path);
      expect(res.status).toBe(200);
      expect(res.body[list].map((r: Record<string, unknown>) => r[field])).toEqual(expected);
    });

    it.each([
      ['/api/data/products/?price=5.00', 'price', 'send 500 for 5.00'],
      ['/api/data/customers/?can_email=maybe', 'can_email', 'true or false'],
      ['/api/data/customers/?date_joined=yesterday', 'date_joined', 'yesterday'],
    ])('GET %s is a 400 naming the field', async (path, field, hint) => {
      const res = await send('GET', path);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain(`filter ${field}`);
      expect(res.body.error.message).toContain(hint);
    });
  });

  describe('every record carries id and updated_at, and one is read by its id', () => {
    it.each([
      ['customers', '/api/data/customers/C-1/', 'external_id', 'C-1'],
      ['products', '/api/data/products/P-1/', 'title', 'Shoe'],
      ['products', '/api/data/products/P-1/?language=fi', 'title', 'Kenkä'],
      ['sales', '/api/data/sales/T-1/', 'sale_state', 'COMPLETE'],
      ['shops', '/api/data/shops/S-1/', 'name', 'Main'],
    ])('%s: GET %s answers the record the list shows', async (list, path, field, value) => {
      const one = await send('GET', path);
      expect(one.status).toBe(200);
      expect(one.body[field]).toBe(value);
      expect(one.body.id).toBeDefined();
      expect(Date.parse(one.body.updated_at)).toBeGreaterThan(Date.now() - 600_000);
      const all = await send('GET', `/api/data/${list}/?limit=100`);
      expect(all.body[list]).toContainEqual(one.body);
    });

    it('customers are numbered by the service and events by their id; an event is read by it', async () => {
      const customers = (await send('GET', '/api/data/customers/')).body.customers;
      expect(customers.map((c: { id: unknown }) => typeof c.id)).toEqual(['number', 'number']);
      expect(new Set(customers.map((c: { id: number }) => c.id)).size).toBe(2);
      const events = (await send('GET', '/api/data/events/')).body.events;
      expect(events).toHaveLength(2);
      for (const event of events) {
        expect(Date.parse(event.updated_at)).toBeGreaterThan(0);
        expect((await send('GET', `/api/data/events/${event.id}/`)).body).toEqual(event);
      }
    });

    it.each(['/api/data/customers/nobody/', '/api/data/products/P-1/?language=sv', '/api/data/sales/T-9/', '/api/data/shops/S-9/', '/api/data/events/999999/'])('GET %s is a 404', async (path) => {
      const res = await send('GET', path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    });

    it('a bulk update moves an event\'s updated_at', async () => {
      const before = (await send('GET', '/api/data/events/?type=BROWSE')).body.events[0];
      const res = await send('POST', '/api/data/query/', { datatype: 'events', match: { id: before.id }, update: { label: 'seen' } });
      expect(res.status).toBe(200);
      await eventually(async () => {
        const after = (await send('GET', `/api/data/events/${before.id}/`)).body;
        expect(after.label).toBe('seen');
        expect(after.updated_at > before.updated_at).toBe(true);
      });
    });
  });

  it('every timestamp in an answer is RFC 3339 UTC with microseconds', async () => {
    const paths = [
      '/api/data/customers/', '/api/data/products/', '/api/data/events/', '/api/data/sales/', '/api/data/shops/', '/api/data/customers/C-1/history/',
      '/api/access-tokens/', '/api/integrations/', '/api/datatargets/', '/api/settings/', '/api/campaigns/statistics/',
    ];
    const seen: string[] = [];
    for (const path of paths) {
      const res = await send('GET', path);
      expect(res.status).toBe(200);
      const walk = (v: unknown): void => {
        if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v)) seen.push(`${path} ${v}`);
        else if (v && typeof v === 'object') Object.values(v).forEach(walk);
      };
      walk(res.body);
    }
    expect(seen.length).toBeGreaterThan(15);
    expect(seen.filter((s) => !/ \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(s))).toEqual([]);
  });

  describe('runs', () => {
    it('an import answer says where to wait, and ?wait answers once the run has ended', async () => {
      const res = await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'C-3', email: 'c3@example.com' }] });
      expect(res.body.run_url).toBe(`/api/runs/${res.body.run_id}/?wait=30`);
      const run = await send('GET', res.body.run_url);
      expect(run.status).toBe(200);
      expect(run.body.state).toBe('completed');
      expect((await send('GET', '/api/data/customers/C-3/')).status).toBe(200);
    });

    it.each(['31', '-1', 'soon'])('?wait=%s is a 400', async (wait) => {
      const res = await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'C-4' }] });
      const run = await send('GET', `/api/runs/${res.body.run_id}/?wait=${wait}`);
      expect(run.status).toBe(400);
      expect(run.body.error.message).toMatch(/wait must be a whole number of seconds from 0 to 30/);
    });

    it('an idempotent replay answers the first bytes with Idempotent-Replayed: true', async () => {
      const body = { customers: [{ external_id: 'C-5', email: 'c5@example.com' }, { external_id: 'bad id!' }] };
      const first = await send('POST', '/api/customers/upload/', body, { 'idempotency-key': 'reads-replay' });
      const again = await send('POST', '/api/customers/upload/', body, { 'idempotency-key': 'reads-replay' });
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(first.text);
    });
  });

  describe('what comes back is what was sent', () => {
    it('next_url keeps the access-token parameter of a request that authenticated by it', async () => {
      const first = await api.call(`/api/data/customers/?limit=1&access-token=${encodeURIComponent(token)}`, { method: 'GET' });
      expect(first.status).toBe(200);
      expect(new URL(first.body.next_url, 'http://x').searchParams.get('access-token')).toBe(token);
      const second = await api.call(first.body.next_url, { method: 'GET' });
      expect(second.status).toBe(200);
      expect(second.body.customers[0].external_id).not.toBe(first.body.customers[0].external_id);
    });

    it('scope paths come back as they were given', async () => {
      const scopes = [{ path: '/api/data/customers/' }, { method: 'get', path: '/api/data/sales' }];
      const res = await send('POST', '/api/access-tokens/', { name: 'scoped', scopes });
      expect(res.status).toBe(200);
      expect(res.body.access_token.scopes).toEqual([{ path: '/api/data/customers/' }, { method: 'GET', path: '/api/data/sales' }]);
      const scoped = res.body.access_token.token as string;
      const read = (path: string) => api.call(path, { method: 'GET', headers: { authorization: `Bearer ${scoped}` } });
      expect((await read('/api/data/customers')).status).toBe(200);
      expect((await read('/api/data/sales/')).status).toBe(200);
      expect((await read('/api/data/events/')).status).toBe(403);
    });
  });
});
