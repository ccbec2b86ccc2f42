import * as http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { fixTimestampsInJson } from '#mds/platform';
import { EXPORT_WITH_DELETED, ExportReadModel, PROJECTIONS } from '#mds/projections';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';

type Json = Record<string, any>;

/** More customers than an export page holds (10,000): the export reads a second page as the first is sent. */
const CUSTOMERS = 10_050;
const DATATYPES = ['customers', 'products', 'events', 'sales', 'shops'] as const;

/**
 * GET /api/export/<datatype>/: every record its list shows, in the list's order, as NDJSON; gzip when
 * asked; resumable with `after` from the last whole line; deleted records left out and forgotten ones
 * shown as the lists show them; the usual error envelope, permission and token scopes.
 */
describe('whole-datatype exports', () => {
  let api: TestApi;
  let token: string;
  let port: number;

  beforeAll(async () => {
    api = await startTestApi({ projections: PROJECTIONS });
    token = (await seedUserToken(api.rt, 'exporter', ['admin'])).token;
    port = Number(new URL(api.base).port);
    expect((await send('PATCH', '/api/settings/', { timezone: 'Europe/Helsinki', default_country: 'FI' })).status).toBe(200);
    const customers = Array.from({ length: CUSTOMERS }, (_, n) => ({ external_id: `C-${n}`, email: `c${n}@example.com`, first_name: `First${n}`, tags: n % 2 ? 'odd' : 'even' }));
    await imported('customers', [...customers, { external_id: 'export', email: 'word@example.com' }]);
    await imported('products', [
      { external_id: 'P-1', title: 'Shoe', price: 4990, category: 'Shoes' },
      { external_id: 'P-1', language: 'fi', title: 'Kenkä' },
      { external_id: 'P-2', title: 'Sock', price: 500 },
      { external_id: 'P-3', title: 'Bag', price: 9900 },
    ]);
    await imported('shops', [{ external_id: 'web-fi', name: 'Web (fi)' }, { external_id: 'web-se', name: 'Web (se)' }, { external_id: 'web-us', name: 'Web (us)' }]);
    await imported('sales', [
      { sale_external_id: 'T-1', sale_date: '2026-03-01', sale_customer_id: 'C-1', product_id: 'P-1', quantity: 1, unit_price: 4990 },
      { sale_external_id: 'T-2', sale_date: '2026-03-02', sale_customer_id: 'C-2', product_id: 'P-2', quantity: 2, unit_price: 500 },
      { sale_external_id: 'T-3', sale_date: '2026-03-03', sale_customer_id: 'C-5', sale_email: 'c5@example.com', product_id: 'P-3', quantity: 1, unit_price: 9900 },
    ]);
    await imported('events', [
      { type: 'BROWSE', date: '2026-03-01', customer_id: 'C-1', path: '/shoes' },
      { type: 'BASKET_ADD', date: '2026-03-02', customer_id: 'C-5', product_id: 'P-3' },
      { type: 'BROWSE', date: '2026-03-03', customer_id: 'C-2', path: '/socks' },
      { type: 'ORDER_SHIPPED', date: '2026-03-04', customer_id: 'C-1', sale_id: 'T-1', tracking_number: 'JJ1' },
    ]);
    // What the lists leave out or show without personal data: a deleted customer, a forgotten one, a
    // deleted event, a hidden sale, an ended product and shop.
    await imported('customers', [{ external_id: 'C-3', is_deleted: true }, { external_id: 'C-5', is_forgotten: true }]);
    const events = (await send('GET', '/api/data/events/?limit=10')).body.events as Json[];
    await imported('events', [{ id: events.find((e) => e.path === '/socks')!.id, is_deleted: true }]);
    await completed(await send('POST', '/api/data/query/', { datatype: 'sales', match: { sale_external_id: 'T-2' }, update: { is_deleted: true } }));
    await imported('products', [{ external_id: 'P-2', is_deleted: true }]);
    await imported('shops', [{ external_id: 'web-se', is_deleted: 'yes' }]);
  }, 180_000);
  afterAll(async () => {
    await api?.close();
  });

  function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    return api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  async function completed(res: { status: number; body: Json }) {
    expect([res.status, res.body.errors ?? []]).toEqual([200, []]);
    await eventually(
      async () => {
        const run = await send('GET', `/api/runs/${res.body.run_id}/`);
        if (run.body.state !== 'completed') throw new Error(`run ${run.body.state}`);
      },
      { timeoutMs: 120_000 },
    );
  }
  const imported = async (datatype: string, records: unknown[]) => completed(await send('POST', `/api/${datatype}/upload/`, { [datatype]: records }));

  /** A GET over plain HTTP (fetch would ask for gzip and undo it): status, headers and the body's bytes; `cutAfter` bytes: the client goes. */
  function raw(path: string, headers: Record<string, string> = {}, cutAfter?: number): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${token}`, ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) });
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (cutAfter !== undefined && size >= cutAfter) {
            req.destroy();
            done();
          }
        });
        res.on('end', done);
        res.on('error', () => undefined);
      });
      req.on('error', (err) => (cutAfter === undefined ? reject(err) : undefined));
    });
  }

  /** The export's lines, parsed; each line ends with a newline and none is blank. */
  async function exported(datatype: string, query = ''): Promise<Json[]> {
    const res = await raw(`/api/export/${datatype}/${query}`);
    expect([res.status, res.headers['content-type'], res.headers['content-encoding']]).toEqual([200, 'application/x-ndjson; charset=utf-8', undefined]);
    const text = res.body.toString('utf8');
    if (text === '') return [];
    expect(text.endsWith('\n')).toBe(true);
    return text.slice(0, -1).split('\n').map((line) => JSON.parse(line) as Json);
  }

  /** Every record of the list, following next_url from a first page of `limit`. */
  async function listed(datatype: string, limit: number, query = ''): Promise<Json[]> {
    const records: Json[] = [];
    for (let next: string | null = `/api/data/${datatype}/?limit=${limit}${query}`; next; ) {
      const page = await send('GET', next);
      expect(page.status).toBe(200);
      records.push(...(page.body[datatype] as Json[]));
      next = page.body.next_url;
    }
    return records;
  }
  // Key order too: the lines are the lists' records, field for field.
  const texts = (records: Json[]) => records.map((r) => JSON.stringify(r));

  it.each(DATATYPES)('%s: every record the list pages give, in their order and shape', async (datatype) => {
    const lines = await exported(datatype);
    expect(texts(lines)).toEqual(texts(await listed(datatype, datatype === 'customers' ? 10_000 : 2)));
  });

  it('leaves out what the lists leave out and shows forgotten customers as they do', async () => {
    const customers = await exported('customers');
    // Every customer but the deleted C-3, and `export`; C-5 forgotten.
    expect(customers).toHaveLength(CUSTOMERS);
    expect(customers.filter((c) => c.external_id === 'C-3')).toEqual([]);
    expect(customers.filter((c) => c.is_forgotten)).toEqual([{ is_forgotten: true }]);
    expect(customers.findIndex((c) => c.is_forgotten)).toBe(4);
    expect(customers[0]).toEqual({ can_email: false, can_post: false, can_profile: false, can_push: false, can_sms: false, external_id: 'C-0', email: 'c0@example.com', first_name: 'First0', tags: ['even'], id: expect.any(Number), updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/) });
    const ids = customers.filter((c) => 'id' in c).map((c) => c.id as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));

    const products = await exported('products');
    expect(products.map((p) => [p.id, p.language ?? null])).toEqual([['P-1', null], ['P-1', 'fi'], ['P-3', null]]);
    expect((await exported('shops')).map((s) => s.id)).toEqual(['web-fi', 'web-us']);
    const sales = await exported('sales');
    expect(sales.map((s) => s.id)).toEqual(['T-1', 'T-3']);
    expect(sales[1]).toMatchObject({ is_forgotten: true });
    expect(sales[1]).not.toHaveProperty('sale_customer_id');
    expect(sales[0].shipments).toEqual([expect.objectContaining({ tracking_number: 'JJ1' })]);
    const events = await exported('events');
    expect(events.map((e) => e.type)).toEqual(['BROWSE', 'BASKET_ADD', 'ORDER_SHIPPED']);
    expect(events[1]).toEqual({ id: expect.any(Number), type: 'BASKET_ADD', date: expect.any(String), is_forgotten: true, updated_at: expect.any(String) });
    // Nothing of the forgotten customer is in any export.
    for (const datatype of DATATYPES) expect((await raw(`/api/export/${datatype}/`)).body.toString()).not.toContain('c5@example.com');
  });

  it('shows ended products and shops with include_deleted=true, as their lists do; other datatypes have none to show', async () => {
    for (const datatype of ['products', 'shops']) {
      const all = await exported(datatype, '?include_deleted=true');
      expect(texts(all)).toEqual(texts(await listed(datatype, 2, '&include_deleted=true')));
      expect(all.filter((r) => r.is_deleted).map((r) => r.id)).toEqual([datatype === 'products' ? 'P-2' : 'web-se']);
      expect(texts(await exported(datatype, '?include_deleted=false'))).toEqual(texts(await exported(datatype)));
    }
    const customers = await send('GET', '/api/export/customers/?include_deleted=true');
    expect([customers.status, customers.body.error.code, customers.body.error.message]).toEqual([400, 'invalid_request', 'include_deleted is for products and shops only: deleted customers are never shown']);
  });

  it('goes on after the id of a line: `after` (products: and `after_language`) streams the lines after it', async () => {
    for (const datatype of DATATYPES) {
      const all = await exported(datatype, datatype === 'products' ? '?include_deleted=true' : '');
      const withIds = all.map((r, i) => [r, i] as const).filter(([r]) => 'id' in r);
      for (const [line, i] of [withIds[0], withIds[1], withIds[withIds.length - 1]]) {
        const cursor = `after=${encodeURIComponent(String(line.id))}${line.language ? `&after_language=${line.language}` : ''}`;
        const rest = await exported(datatype, `?${cursor}${datatype === 'products' ? '&include_deleted=true' : ''}`);
        expect([datatype, cursor, texts(rest)]).toEqual([datatype, cursor, texts(all.slice(i + 1))]);
      }
    }
    // After a product's row without a language come its language rows.
    expect((await exported('products', '?after=P-1')).map((p) => [p.id, p.language ?? null])).toEqual([['P-1', 'fi'], ['P-3', null]]);
    expect((await exported('products', '?after=P-1&after_language=fi')).map((p) => p.id)).toEqual(['P-3']);
    // An id between two lines' ids (the line was deleted meanwhile) goes on after where it was.
    expect((await exported('sales', '?after=T-2')).map((s) => s.id)).toEqual(['T-3']);
  });

  it('reads page after page from the last key of the one before (pages of one line here), two-part keys too', async () => {
    const model = new ExportReadModel({ pool: api.rt.pool });
    for (const datatype of DATATYPES) {
      const lines: string[] = [];
      for (let page = await model.page(datatype, { limit: 1, includeDeleted: true }); page.count > 0; page = await model.page(datatype, { after: page.last!, limit: 1, includeDeleted: true })) {
        lines.push(page.lines);
        if (datatype === 'customers' && lines.length === 20) break;
      }
      const all = (await raw(`/api/export/${datatype}/${EXPORT_WITH_DELETED.includes(datatype) ? '?include_deleted=true' : ''}`)).body.toString('utf8').split('\n');
      expect([datatype, lines.map((l) => JSON.parse(fixTimestampsInJson(l)))]).toEqual([datatype, all.slice(0, lines.length).map((l) => JSON.parse(l))]);
    }
  });

  it('an export cut short goes on from its last whole line (before a forgotten customer: the last one with an id) to the same whole', async () => {
    const full = (await raw('/api/export/customers/')).body.toString('utf8');
    const cut = (await raw('/api/export/customers/', {}, 600_000)).body.toString('utf8');
    expect(cut.length).toBeLessThan(full.length);
    // The whole lines received, up to the last one with an id: the client keeps those and resumes after that id.
    const lines = cut.slice(0, cut.lastIndexOf('\n')).split('\n');
    let k = lines.length - 1;
    while (!('id' in (JSON.parse(lines[k]) as Json))) k--;
    const resumed = (await raw(`/api/export/customers/?after=${(JSON.parse(lines[k]) as Json).id}`)).body.toString('utf8');
    expect(`${lines.slice(0, k + 1).join('\n')}\n${resumed}`).toBe(full);
    // The service goes on serving after a client went mid-export.
    expect((await raw('/api/export/customers/')).body.toString('utf8')).toBe(full);

    // A client whose last whole line was the forgotten customer's resumes after the line before it (C-4): that line comes again, then the rest.
    const all = full.slice(0, -1).split('\n');
    const forgotten = all.indexOf('{"is_forgotten": true}');
    const before = JSON.parse(all[forgotten - 1]) as Json;
    expect((await raw(`/api/export/customers/?after=${before.id}`)).body.toString('utf8')).toBe(`${all.slice(forgotten).join('\n')}\n`);
  });

  it('keeps a Min-Position for every page (served by the primary here: there is no replica)', async () => {
    const full = (await raw('/api/export/customers/')).body.toString('utf8');
    const head = await api.rt.store.headPosition();
    const res = await raw('/api/export/customers/', { 'min-position': String(head) });
    expect([res.status, res.body.toString('utf8') === full]).toEqual([200, true]);
    const bad = await raw('/api/export/customers/', { 'min-position': 'latest' });
    expect([bad.status, JSON.parse(bad.body.toString()).error.code]).toEqual([400, 'invalid_request']);
  });

  it('is gzip-compressed when the client takes gzip', async () => {
    const plain = await raw('/api/export/customers/');
    const zipped = await raw('/api/export/customers/', { 'accept-encoding': 'gzip, deflate' });
    expect([zipped.status, zipped.headers['content-encoding'], zipped.headers['content-type'], zipped.headers.vary]).toEqual([200, 'gzip', 'application/x-ndjson; charset=utf-8', 'accept-encoding']);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 4);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    for (const refused of ['gzip;q=0', 'identity', 'br']) {
      const res = await raw('/api/export/shops/', { 'accept-encoding': refused });
      expect([refused, res.headers['content-encoding'], res.body.toString()]).toEqual([refused, undefined, (await raw('/api/export/shops/')).body.toString()]);
    }
    expect(gunzipSync((await raw('/api/export/shops/', { 'accept-encoding': '*' })).body).toString()).toContain('"web-fi"');
  });

  it.each([
    ['/api/export/orders/', 404, 'not_found', 'No export of "orders"; exports: customers, products, events, sales, shops'],
    ['/api/export/customers/?after=C-1', 400, 'invalid_request', 'after is the id of a line of this export: a whole number for customers'],
    ['/api/export/events/?after=-1', 400, 'invalid_request', 'after is the id of a line of this export: a whole number for events'],
    ['/api/export/customers/?after=1&after=2', 400, 'invalid_request', 'after and after_language are given once'],
    ['/api/export/sales/?after=T-1&after_language=fi', 400, 'invalid_request', 'after_language is for products only'],
    ['/api/export/products/?after_language=fi', 400, 'invalid_request', 'after_language goes with after'],
    ['/api/export/products/?include_deleted=maybe', 400, 'invalid_request', 'include_deleted must be true or false'],
    ['/api/export/customers/?limit=10', 400, 'invalid_request', 'Unknown query parameter "limit"; accepted: include_deleted, after_language, after, access-token'],
  ])('GET %s is a %i %s in the error envelope', async (path, status, code, message) => {
    const res = await raw(path, { 'accept-encoding': 'gzip' });
    expect([res.status, res.headers['content-type'], res.headers['content-encoding']]).toEqual([status, 'application/json; charset=utf-8', undefined]);
    expect(JSON.parse(res.body.toString())).toEqual({ error: { code, message } });
  });

  it('needs data:read, and a token scoped to paths only reaches those', async () => {
    expect((await api.call('/api/export/customers/')).status).toBe(401);
    const scoped = (await seedUserToken(api.rt, 'export-only', ['staff'], { scopes: [{ method: 'GET', path: '/api/export/shops/' }] })).token;
    const as = (t: string, path: string) => api.call(path, { headers: { authorization: `Bearer ${t}` } });
    const shops = await as(scoped, '/api/export/shops/');
    expect([shops.status, shops.text]).toEqual([200, (await raw('/api/export/shops/')).body.toString()]);
    expect((await as(scoped, '/api/export/customers/')).status).toBe(403);
    // A token for the list is not one for the export.
    const lister = (await seedUserToken(api.rt, 'list-only', ['staff'], { scopes: [{ method: 'GET', path: '/api/data/customers/' }] })).token;
    expect((await as(lister, '/api/data/customers/?limit=1')).status).toBe(200);
    const refused = await as(lister, '/api/export/customers/');
    expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
  });

  it('lives apart from the lists: /api/data/customers/export/ is the customer whose external id is "export"', async () => {
    const res = await send('GET', '/api/data/customers/export/');
    expect([res.status, res.body.external_id, res.body.email]).toEqual([200, 'export', 'word@example.com']);
  });
});
