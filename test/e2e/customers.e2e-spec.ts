import { CUSTOMERS_IMPORTED, customerMergeModel } from '#mds/customers';
import { customerHistory, customersMerge, customersProjection, customerView, rebuildProjection, waitForProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { stamped } from '../support/records';
import { seededRandom } from '../support/random';

// Twice: as the service runs (set-based waves), and with every page that repeats an identifier applied one
// record at a time (the fallback for pages that would take many waves), which must give the same customers.
describe.each([
  ['in waves', customersMerge.wavesBeforeInOrder],
  ['one record at a time', 0],
])('customer import and retrieval over HTTP, merged %s', (_, wavesBeforeInOrder) => {
  let api: TestApi;
  let token: string;
  const configured = customersMerge.wavesBeforeInOrder;

  beforeAll(async () => {
    customersMerge.wavesBeforeInOrder = wavesBeforeInOrder;
    api = await startTestApi({ projections: [customersProjection] });
    token = (await seedUserToken(api.rt, 'importer', ['admin'])).token;
    const s = await send('PATCH', '/api/settings/', { timezone: 'Europe/Helsinki', default_country: 'FI', company_prefixes: ['ACME'] });
    expect(s.status).toBe(200);
  });
  afterAll(async () => {
    await api?.close();
    customersMerge.wavesBeforeInOrder = configured;
  });

  function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    return api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  /** Imports and waits until the run is completed (readable). */
  async function importCustomers(customers: unknown[], path = '/api/customers/upload/') {
    const res = await send('POST', path, { customers });
    expect(res.status).toBe(200);
    await eventually(async () => {
      const run = await send('GET', `/api/runs/${res.body.run_id}/`);
      if (run.body.state !== 'completed') throw new Error(`run ${run.body.state}`);
    });
    return res.body;
  }

  async function one(query: string): Promise<Record<string, unknown> | undefined> {
    const res = await send('GET', `/api/data/customers/?${query}`);
    expect(res.status).toBe(200);
    expect(res.body.customers.length).toBeLessThanOrEqual(1);
    return res.body.customers[0];
  }

  it('coerces what plugins send: booleans, numeric ids, dates in every form, lists, phones, null, unknown and company keys', async () => {
    const answer = await importCustomers([
      {
        external_id: 1043, email: 'ada@example.com', first_name: 'Ada', can_email: '1', can_sms: 'false', can_post: 1, can_push: '',
        date_joined: '2024-03-01 12:30:00', last_login: '2024-03-01T10:00:00+02:00', birth_date: '1990-12-10',
        tags: 'vip, newsletter', mailing_lists: 'weekly', phone_number: '040 765 4321', state: 'active', store_id: 3,
        ACME__tier: 'gold', city: null, country: 'fi',
      },
      { external_id: 'B-2', email: 'b@example.com', date_joined: '2024-06-15', last_login: '2024-06-15T08:00:00.000000Z', tags: ['x', 'y'] },
      { external_id: 'bad_id!', email: 'c@example.com' },
      { email: 'd@example.com', birth_date: '2025-02-29' },
      { first_name: 'No identifier' },
      { email: 'e@example.com', BETA__tier: 'x' },
      { email: 'f@example.com', can_email: 'perhaps' },
    ]);
    expect(answer).toMatchObject({ response: 'ok', accepted: 2, rejected: 5 });
    expect(answer.errors).toEqual([
      { index: 2, field: 'external_id', code: 'invalid_external_id', message: 'external_id: letters, numbers and dashes only' },
      { index: 3, field: 'birth_date', code: 'invalid_date', message: 'birth_date: "2025-02-29" is not a real date' },
      { index: 4, field: null, code: 'missing_identifier', message: 'a customer needs at least one of external_id, phone_number, email' },
      { index: 5, field: 'BETA__tier', code: 'unknown_company', message: `"BETA" is not among the settings' company_prefixes` },
      { index: 6, field: 'can_email', code: 'invalid_boolean', message: 'can_email: expected true or false, got string "perhaps"' },
    ]);
    expect(await one('external_id=1043')).toEqual(stamped({
      external_id: '1043', email: 'ada@example.com', first_name: 'Ada', can_email: true, can_sms: false, can_post: true, can_push: false, can_profile: false,
      // Without a zone the settings' zone (Helsinki, UTC+2 in March) applies; with an offset, the offset.
      date_joined: '2024-03-01T10:30:00.000000Z', last_login: '2024-03-01T08:00:00.000000Z', birth_date: '1990-12-10',
      tags: ['vip', 'newsletter'], mailing_lists: ['weekly'], phone_number: '040 765 4321', state: 'active', store_id: 3, ACME__tier: 'gold', country: 'FI',
    }));
    // A date alone is midnight in the settings' zone (UTC+3 in June).
    expect(await one('external_id=B-2')).toMatchObject({ date_joined: '2024-06-14T21:00:00.000000Z', last_login: '2024-06-15T08:00:00.000000Z', tags: ['x', 'y'] });
    // Phones match on their normalised form: the same number spelled internationally finds Ada.
    await importCustomers([{ phone_number: '+358 40 765 4321', last_name: 'Lovelace' }]);
    expect(await one('external_id=1043')).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace', phone_number: '+358 40 765 4321' });
    expect(await one('ACME__tier=gold')).toMatchObject({ external_id: '1043' });
    expect(await one('tags=vip')).toMatchObject({ external_id: '1043' });
    expect(await one('email=ADA@example.com')).toMatchObject({ external_id: '1043' });
  });

  it('changes only supplied keys, removes keys sent as "", edits lists incrementally, and applies repeats in order', async () => {
    await importCustomers([{ external_id: 'R-1', email: 'r1@example.com', first_name: 'Rita', city: 'Oulu', tags: ['a', 'b'], mailing_lists: ['m1'] }]);
    await importCustomers([
      { external_id: 'R-1', city: '', 'tags.add': ['c', 'a'], 'tags.remove': 'b', 'mailing_lists.add': 'm2' },
      { external_id: 'R-1', first_name: 'Rita-Liisa' },
      { email: 'r1@example.com', zip_code: '90100' },
    ]);
    expect(await one('external_id=R-1')).toEqual(stamped({
      external_id: 'R-1', email: 'r1@example.com', first_name: 'Rita-Liisa', zip_code: '90100', tags: ['a', 'c'], mailing_lists: ['m1', 'm2'],
      can_email: false, can_post: false, can_profile: false, can_push: false, can_sms: false,
    }));
  });

  it('matches by external_id, then phone, then e-mail, and gives a guest found by e-mail its external_id', async () => {
    await importCustomers([{ email: 'guest@example.com', first_name: 'Guest' }]);
    await importCustomers([{ external_id: 'G-9', email: 'guest@example.com', last_name: 'Registered' }]);
    expect(await one('external_id=G-9')).toMatchObject({ first_name: 'Guest', last_name: 'Registered', email: 'guest@example.com' });
    // An unknown external_id whose e-mail belongs to a customer with another external_id is a new customer.
    await importCustomers([{ external_id: 'G-10', email: 'guest@example.com', first_name: 'Other' }]);
    expect(await one('external_id=G-10')).toMatchObject({ first_name: 'Other' });
    expect(await one('external_id=G-9')).toMatchObject({ first_name: 'Guest' });
    // Within one request: a new customer, then an update of it by e-mail.
    await importCustomers([{ external_id: 'N-1', email: 'n1@example.com' }, { email: 'n1@example.com', city: 'Turku' }]);
    expect(await one('external_id=N-1')).toMatchObject({ city: 'Turku' });
  });

  it('orders records sharing a phone only where the order matters, within one request', async () => {
    // Distinct external_ids with one phone and no guest having it: independent customers.
    await importCustomers([
      { external_id: 'S-1', phone_number: '+358401110001', first_name: 'One' },
      { external_id: 'S-2', phone_number: '+358401110001', first_name: 'Two' },
      { external_id: 'S-1', city: 'Espoo' },
    ]);
    expect(await one('external_id=S-1')).toMatchObject({ first_name: 'One', city: 'Espoo' });
    expect(await one('external_id=S-2')).toMatchObject({ first_name: 'Two' });
    expect((await one('external_id=S-2'))!.city).toBeUndefined();
    // A record without an external_id takes whichever customer has the phone: the one created just before it.
    await importCustomers([{ external_id: 'T-1', phone_number: '+358401110002', first_name: 'Tee' }, { phone_number: '+358401110002', city: 'Vantaa' }]);
    expect(await one('external_id=T-1')).toMatchObject({ first_name: 'Tee', city: 'Vantaa' });
    expect((await send('GET', '/api/data/customers/?city=Vantaa')).body.count).toBe(1);
    // A guest with the phone goes to the first unknown external_id; the second is a new customer.
    await importCustomers([{ phone_number: '+358401110003', first_name: 'Guest' }]);
    await importCustomers([
      { external_id: 'U-1', phone_number: '+358401110003', last_name: 'First' },
      { external_id: 'U-2', phone_number: '+358401110003', last_name: 'Second' },
    ]);
    expect(await one('external_id=U-1')).toMatchObject({ first_name: 'Guest', last_name: 'First' });
    expect((await one('external_id=U-2'))!.first_name).toBeUndefined();
    // The same within one request, the guest created by its first record.
    await importCustomers([
      { phone_number: '+358401110004', first_name: 'Walk-in' },
      { external_id: 'W-1', phone_number: '+358401110004', last_name: 'One' },
      { external_id: 'W-2', phone_number: '+358401110004', last_name: 'Two' },
    ]);
    expect(await one('external_id=W-1')).toMatchObject({ first_name: 'Walk-in', last_name: 'One' });
    expect(await one('external_id=W-2')).toMatchObject({ last_name: 'Two' });
    expect((await one('external_id=W-2'))!.first_name).toBeUndefined();
  });

  it('applies repeats of an external_id as in sequence, also where other records of the request find the customer in between', async () => {
    // Plain repeats: later fields win, earlier ones stay, the phone is the last one sent.
    await importCustomers([
      { external_id: 'X-1', phone_number: '+358401120001', first_name: 'A', city: 'Oulu', tags: ['a'] },
      { external_id: 'X-2', first_name: 'Other' },
      { external_id: 'X-1', last_name: 'B' },
      { external_id: 'X-1', first_name: 'C', phone_number: '+358401120002' },
    ]);
    expect(await one('external_id=X-1')).toMatchObject({ first_name: 'C', last_name: 'B', city: 'Oulu', tags: ['a'], phone_number: '+358401120002' });
    expect((await send('GET', '/api/data/customers/?first_name=C')).body.count).toBe(1);
    // A record without an external_id finds the customer by its phone between two repeats, before the
    // second changes the phone: it updates that customer (not a new guest).
    await importCustomers([{ external_id: 'Y-1', phone_number: '+358401120003' }]);
    await importCustomers([
      { external_id: 'Y-1', first_name: 'Ylva' },
      { phone_number: '+358401120003', city: 'Kemi' },
      { external_id: 'Y-1', phone_number: '+358401120004' },
    ]);
    expect(await one('external_id=Y-1')).toMatchObject({ first_name: 'Ylva', city: 'Kemi', phone_number: '+358401120004' });
    expect((await send('GET', '/api/data/customers/?city=Kemi')).body.count).toBe(1);
    // The same with the customer created by the request's first record, found by its e-mail, or by its phone.
    await importCustomers([
      { external_id: 'Z-1', email: 'z1@example.com' },
      { email: 'z1@example.com', city: 'Pori' },
      { external_id: 'Z-1', email: 'z2@example.com' },
      { external_id: 'Q-1', phone_number: '+358401120005' },
      { phone_number: '+358401120005', city: 'Lahti' },
      { external_id: 'Q-1', phone_number: '+358401120006' },
    ]);
    expect(await one('external_id=Z-1')).toMatchObject({ email: 'z2@example.com', city: 'Pori' });
    expect((await send('GET', '/api/data/customers/?city=Pori')).body.count).toBe(1);
    expect(await one('external_id=Q-1')).toMatchObject({ phone_number: '+358401120006', city: 'Lahti' });
    expect((await send('GET', '/api/data/customers/?city=Lahti')).body.count).toBe(1);
  });

  it('applies repeats of an external_id with list operations and removals one after another', async () => {
    await importCustomers([
      { external_id: 'K-1', tags: ['a'], city: 'Kotka', first_name: 'Kalle' },
      { external_id: 'K-2', tags: ['x'] },
      { external_id: 'K-1', 'tags.add': ['b'], 'tags.remove': 'a' },
      { external_id: 'K-2', 'tags.add': 'y' },
      { external_id: 'K-1', 'tags.add': ['a'], city: '' },
      { external_id: 'K-1', is_deleted: false, last_name: 'K' },
    ]);
    const k1 = await one('external_id=K-1');
    expect(k1).toMatchObject({ first_name: 'Kalle', last_name: 'K', tags: ['b', 'a'] });
    expect(k1!.city).toBeUndefined();
    expect(await one('external_id=K-2')).toMatchObject({ tags: ['x', 'y'] });
  });

  it('applies repeats of a guest (matched by phone, else e-mail) as in sequence, also where a registration takes the guest in between', async () => {
    await importCustomers([
      { email: 'Guest.G1@example.com', first_name: 'A', city: 'Oulu' },
      { email: 'guest.g1@example.com', last_name: 'B' },
      { email: 'guest.g1@example.com', first_name: 'C' },
    ]);
    expect((await send('GET', '/api/data/customers/?email=guest.g1@example.com')).body.customers).toEqual([
      expect.objectContaining({ email: 'guest.g1@example.com', first_name: 'C', last_name: 'B', city: 'Oulu' }),
    ]);
    // Guests are found by phone before e-mail: one phone with two e-mails is one customer, with the last e-mail.
    await importCustomers([
      { phone_number: '+358401120008', email: 'h1@example.com', first_name: 'Hanna' },
      { phone_number: '+358401120008', email: 'h2@example.com', last_name: 'H' },
    ]);
    expect((await send('GET', '/api/data/customers/?last_name=H')).body.customers).toEqual([
      expect.objectContaining({ email: 'h2@example.com', first_name: 'Hanna', phone_number: '+358401120008' }),
    ]);
    expect((await send('GET', '/api/data/customers/?first_name=Hanna')).body.count).toBe(1);
    // Guests with new phones and one e-mail (phone orders given a placeholder e-mail) are one customer, found by
    // the e-mail; one whose phone belongs to a customer goes to that customer, and the e-mail then finds the older one.
    await importCustomers([{ external_id: 'L-1', phone_number: '+358401120010', email: 'l1@example.com' }]);
    await importCustomers([
      { phone_number: '+358401120011', email: 'orders@shop.example', first_name: 'Order1' },
      { phone_number: '+358401120012', email: 'orders@shop.example', last_name: 'Order2' },
      { phone_number: '+358401120013', email: 'orders@shop.example', first_name: 'Order3' },
    ]);
    expect((await send('GET', '/api/data/customers/?email=orders@shop.example')).body.customers).toEqual([
      expect.objectContaining({ phone_number: '+358401120013', first_name: 'Order3', last_name: 'Order2' }),
    ]);
    await importCustomers([
      { phone_number: '+358401120014', email: 'desk@shop.example', first_name: 'Desk' },
      { phone_number: '+358401120010', email: 'desk@shop.example', last_name: 'Lassi' },
      { phone_number: '+358401120015', email: 'desk@shop.example', city: 'Salo' },
    ]);
    expect(await one('external_id=L-1')).toMatchObject({ email: 'desk@shop.example', last_name: 'Lassi', city: 'Salo', phone_number: '+358401120015' });
    expect((await send('GET', '/api/data/customers/?first_name=Desk')).body.customers).toEqual([
      expect.objectContaining({ email: 'desk@shop.example', phone_number: '+358401120014' }),
    ]);
    // An unknown external_id takes the guest made by the first record; the guest's next record updates that customer.
    await importCustomers([
      { phone_number: '+358401120007', first_name: 'Uno' },
      { external_id: 'V-1', phone_number: '+358401120007', first_name: 'Dos', city: 'Rauma' },
      { phone_number: '+358401120007', first_name: 'Tres' },
    ]);
    expect(await one('external_id=V-1')).toMatchObject({ first_name: 'Tres', city: 'Rauma' });
    expect((await send('GET', '/api/data/customers/?city=Rauma')).body.count).toBe(1);
    expect((await send('GET', '/api/data/customers/?first_name=Uno')).body.count).toBe(0);
  });

  it('keeps deleted customers deleted and forgotten customers forgotten', async () => {
    await importCustomers([{ external_id: 'D-1', email: 'd1@example.com' }, { external_id: 'F-1', email: 'f1@example.com', first_name: 'Frida', phone_number: '050 123 4567' }]);
    await importCustomers([{ external_id: 'D-1', is_deleted: true }, { external_id: 'F-1', is_forgotten: 'true' }]);
    expect(await one('external_id=D-1')).toBeUndefined();
    await importCustomers([{ external_id: 'D-1', is_deleted: false, first_name: 'Back?' }, { external_id: 'D-1' }]);
    expect(await one('external_id=D-1')).toBeUndefined();
    // Forgotten: anonymised, and nothing of it comes back: later imports with its identifiers start new customers.
    const { rows } = await api.rt.pool.query(`SELECT data::text AS d FROM customers`);
    expect(rows.map((r) => r.d).join()).not.toMatch(/Frida|f1@example/);
    await importCustomers([{ email: 'f1@example.com', first_name: 'Again' }, { phone_number: '+358501234567', city: 'X' }, { external_id: 'F-1', last_name: 'Y' }]);
    const all = await send('GET', '/api/data/customers/?limit=10000');
    expect(JSON.stringify(all.body)).not.toMatch(/Frida/);
    expect(all.body.customers.filter((c: Record<string, unknown>) => c.is_forgotten === true)).toEqual([{ is_forgotten: true }]);
    expect(await one('external_id=F-1')).toEqual(expect.not.objectContaining({ first_name: expect.anything() }));
    expect(await one('external_id=F-1')).toMatchObject({ external_id: 'F-1', last_name: 'Y' });
    expect((await send('GET', '/api/data/customers/?email=f1@example.com')).body.customers).toEqual([expect.objectContaining({ first_name: 'Again' })]);
  });

  it("starts a new customer for a record after a forgetting that names the forgotten customer's phone, though the records share nothing", async () => {
    await importCustomers([{ external_id: 'FX-1', phone_number: '+358401120020', first_name: 'Fiona' }]);
    await importCustomers([{ external_id: 'FX-1', is_forgotten: true }, { external_id: 'FY-1', phone_number: '+358401120020', first_name: 'Late' }]);
    expect(await one('external_id=FY-1')).toEqual(expect.objectContaining({ external_id: 'FY-1', first_name: 'Late', phone_number: '+358401120020' }));
    expect(JSON.stringify((await send('GET', '/api/data/customers/?limit=10000')).body)).not.toMatch(/Fiona/);
  });

  it('holds back the records after one that waits: a later record may change the customer it will find', async () => {
    // The guest record waits for PA-1's second record (both find PA-1 by its phone at first); that record
    // moves PA-1 to another phone, so the guest finds PB-1 by e-mail, before PB-1's second record changes it.
    await importCustomers([
      { external_id: 'PA-1', phone_number: '+358401120021', email: 'pa@example.com' },
      { external_id: 'PB-1', email: 'pb1@example.com' },
      { external_id: 'PA-1', phone_number: '+358401120022' },
      { phone_number: '+358401120021', email: 'pb1@example.com', city: 'Kuopio' },
      { external_id: 'PB-1', email: 'pb2@example.com' },
    ]);
    expect(await one('external_id=PB-1')).toMatchObject({ email: 'pb2@example.com', city: 'Kuopio', phone_number: '+358401120021' });
    expect((await send('GET', '/api/data/customers/?city=Kuopio')).body.count).toBe(1);
  });

  it('filters by updated_since, pages with next_url and answers bad parameters with 400', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    await importCustomers(Array.from({ length: 25 }, (_, i) => ({ external_id: `P-${i}`, email: `p${i}@example.com` })));
    const seen: string[] = [];
    let next: string | null = `/api/data/customers/?limit=7&updated_since=${encodeURIComponent(before)}`;
    while (next) {
      const page = await send('GET', next);
      seen.push(...page.body.customers.map((c: { external_id: string }) => c.external_id));
      expect(page.body.count).toBe(page.body.customers.length);
      expect('next_url' in page.body).toBe(true);
      next = page.body.next_url;
    }
    // The last page says so: next_url is there, null.
    expect(next).toBeNull();
    expect((await send('GET', '/api/data/customers/?external_id=NO-SUCH')).body).toEqual({ customers: [], count: 0, next_url: null });
    expect(seen.filter((id) => typeof id === 'string' && id.startsWith('P-')).sort()).toEqual(Array.from({ length: 25 }, (_, i) => `P-${i}`).sort());
    // No customer twice (guests, without an external_id, may have been updated in the same second by earlier tests).
    const ids = seen.filter((id) => id !== undefined);
    expect(new Set(ids).size).toBe(ids.length);
    expect((await send('GET', '/api/data/customers/?updated_since=yesterday')).status).toBe(400);
    expect((await send('GET', '/api/data/customers/?limit=-1')).status).toBe(400);
  });

  it('accepts the /api/customer/upload/ alias, an empty list and null', async () => {
    const a = await importCustomers([{ external_id: 'ALIAS-1' }], '/api/customer/upload/');
    expect(a.accepted).toBe(1);
    expect((await send('POST', '/api/customers/upload/', { customers: [] })).body).toMatchObject({ accepted: 0 });
    expect((await send('POST', '/api/customers/upload/', { customers: null })).body).toMatchObject({ accepted: 0 });
  });

  it('refuses an empty body on every upload path, appending nothing, while {} is zero records', async () => {
    const head = await api.rt.store.headPosition();
    const uploads = ['customers', 'products', 'events', 'sales'].flatMap((t) => [`POST /api/${t}/upload/`, `PUT /api/${t.slice(0, -1)}/upload/`]);
    uploads.push('POST /api/shops/upload/', 'POST /api/campaigns/upload/', 'POST /api/campaigns/events/upload/');
    const answers = [];
    for (const route of uploads) {
      const [method, path] = route.split(' ');
      for (const [name, init] of [
        ['empty', { headers: { 'content-type': 'application/json' }, body: '' }],
        ['blank', { headers: { 'content-type': 'application/json; charset=utf-8' }, body: ' \r\n' }],
        ['none', { headers: {} }],
      ] as const) {
        const res = await api.call(path, { method, headers: { authorization: `Bearer ${token}`, ...init.headers }, body: 'body' in init ? init.body : undefined });
        answers.push([route, name, res.status, res.body]);
      }
    }
    const refused = { error: { code: 'invalid_request', message: expect.stringMatching(/^The request body is empty/) } };
    expect(answers).toEqual(uploads.flatMap((route) => ['empty', 'blank', 'none'].map((name) => [route, name, 400, refused])));
    expect(await api.rt.store.headPosition()).toBe(head);
    expect((await send('POST', '/api/customers/upload/', {})).body).toMatchObject({ response: 'ok', accepted: 0, rejected: 0 });
    expect((await send('POST', '/api/sales/upload/', {})).body).toMatchObject({ response: 'ok', accepted: 0, rejected: 0 });
    expect((await send('POST', '/api/events/upload/', [])).body).toMatchObject({ response: 'ok', accepted: 0, rejected: 0 });
  });

  it('rebuilds the customers projection into an identical read model', async () => {
    const dump = `SELECT md5(string_agg(c::text, '|' ORDER BY customer_id)) AS d, count(*)::int AS n FROM customers c`;
    await waitForProjection(api.rt.pool, 'customers', await api.rt.store.headPosition());
    const before = (await api.rt.pool.query(dump)).rows[0];
    // The rebuild reads many imports per page, where the live projection got one at a time.
    await rebuildProjection(api.rt.runnerDeps(), customersProjection);
    expect((await api.rt.pool.query(dump)).rows[0]).toEqual(before);
    expect(before.n).toBeGreaterThan(30);
  });
});

// The set-based merge (waves, merged repeats, steps, the one-at-a-time fallback) against applying every
// record one at a time, over random records in a small space of identities, so that they collide often:
// the live read model (a page per request), the model of the rules (customer-merge.model.ts), then the
// read model rebuilt (all requests in a page) one record at a time, then rebuilt set-based again,
// must be the same rows.
describe('customer merge, set-based against one record at a time', () => {
  let api: TestApi;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: [customersProjection] });
    token = (await seedUserToken(api.rt, 'importer', ['admin'])).token;
  });
  afterAll(async () => {
    await api?.close();
  });

  // Seeds 11 and 14 found two faults of the waves: a forgetting applied before an earlier record that
  // named its customer's phone, and a record applied before an earlier one that was waiting and would
  // have found the customer it changed.
  it.each([20261123, 11, 14])('gives the same customers over 12 requests of 40 random records (seed %i)', async (seed) => {
    const rand = seededRandom(seed);
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
    const record = (n: number) => {
      const r: Record<string, unknown> = { n };
      const ext = pick([null, null, 'RX-1', 'RX-2', 'RX-3', 'RX-4']);
      const phone = pick([null, null, '+358401130001', '+358401130002', '+358401130003']);
      const email = pick([null, null, 'rx1@example.com', 'rx2@example.com', 'RX2@example.com', 'rx3@example.com']);
      if (ext) r.external_id = ext;
      if (phone) r.phone_number = phone;
      if (email || (!ext && !phone)) r.email = email ?? 'rx4@example.com'; // a record needs an identifier
      if (rand() < 0.1) r.cb_token = pick(['tok-1', 'tok-2']);
      r.first_name = pick(['Aino', 'Eino', 'Olli', '']);
      const list = pick(['none', 'none', 'set', 'add', 'remove']);
      if (list === 'set') r.tags = [pick(['a', 'b', 'c'])];
      if (list === 'add') r['tags.add'] = [pick(['a', 'b', 'c'])];
      if (list === 'remove') r['tags.remove'] = pick(['a', 'b']);
      if (rand() < 0.3) r.city = pick(['Oulu', 'Turku', '']);
      if (rand() < 0.05) r.is_deleted = true;
      if (rand() < 0.01) r.is_forgotten = true;
      return r;
    };
    for (let request = 0; request < 12; request++) {
      const res = await api.call('/api/customers/upload/', {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ customers: Array.from({ length: 40 }, (_, i) => record(request * 40 + i)) }),
      });
      expect([res.status, res.body.rejected, res.body.errors ?? []]).toEqual([200, 0, []]);
      // One request a page, so the live read model does not depend on timing.
      await waitForProjection(api.rt.pool, 'customers', await api.rt.store.headPosition());
    }
    const rows = async () => {
      await waitForProjection(api.rt.pool, 'customers', await api.rt.store.headPosition());
      const customers = (await api.rt.pool.query(`SELECT c::text AS row FROM customers c ORDER BY customer_id`)).rows.map((r) => r.row);
      const forgotten = (await api.rt.pool.query(`SELECT kind || ':' || hash AS row FROM forgotten_identifiers ORDER BY 1`)).rows.map((r) => r.row);
      const changes = (await api.rt.pool.query(`SELECT customer_id || '@' || position || '.' || n AS row FROM customer_changes ORDER BY customer_id, position, n`)).rows.map((r) => r.row);
      return { customers, forgotten, changes };
    };
    const live = await rows();
    expect(live.customers.length).toBeGreaterThan(2);
    // The model (libs/customers customer-merge.model.ts), one record at a time over the chunks the log holds, gives the same.
    let state = customerMergeModel.emptyCustomers();
    // The external id each record was sent with: a customer keeps its first record's (created_ext), which forgetting reads.
    const sentWith = new Map<number, string | null>();
    for (let after = 0; ; ) {
      const page = await api.rt.store.readAll({ after, limit: 100, filter: { types: [CUSTOMERS_IMPORTED] } });
      for (const e of page.events) {
        const { records } = e.data as { records: customerMergeModel.CustomerPatch[] };
        records.forEach((record, i) => {
          sentWith.set(e.position * 10000 + i + 1, typeof record.external_id === 'string' && record.external_id !== '' ? record.external_id : null);
          state = customerMergeModel.applyCustomerRecord(state, record, { ord: e.position * 10000 + i + 1, position: e.position, at: new Date(e.createdAt).toISOString() });
        });
      }
      if (page.position === after) break;
      after = page.position;
    }
    const modelled = [...state.customers.values()].sort((a, b) => a.customer_id - b.customer_id);
    const stored = (await api.rt.pool.query(`SELECT * FROM customers ORDER BY customer_id`)).rows.map(({ created_ext, ...r }) => ({
      ...r, customer_id: Number(r.customer_id), updated_position: Number(r.updated_position), created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString(),
    }));
    expect(stored).toEqual(modelled);
    const createdExt = (await api.rt.pool.query(`SELECT customer_id::float8 AS id, created_ext FROM customers ORDER BY customer_id`)).rows;
    expect(createdExt.filter((r) => r.created_ext !== null).length).toBeGreaterThan(0);
    expect(createdExt).toEqual(createdExt.map((r) => ({ id: r.id, created_ext: sentWith.get(r.id) })));
    const forgotten = (await api.rt.pool.query(`SELECT kind, hash, customer_id::float8 AS customer_id FROM forgotten_identifiers ORDER BY 1, 2`)).rows;
    expect(forgotten).toEqual([...state.forgotten.values()].sort((a, b) => (a.kind + a.hash < b.kind + b.hash ? -1 : 1)));
    expect(live.customers.filter((c) => c.includes('"tags"')).length).toBeGreaterThan(0);
    // Each customer's history (the records customer_changes names, folded by the model) ends where the customer is.
    const named = modelled.filter((c) => c.external_id !== null && !c.is_forgotten);
    expect(named.length).toBeGreaterThan(0);
    for (const c of named) expect([c.external_id, (await customerHistory(api.rt, c.external_id!))?.customer]).toEqual([c.external_id, customerView(c)]);
    const configured = customersMerge.wavesBeforeInOrder;
    try {
      customersMerge.wavesBeforeInOrder = 0;
      await rebuildProjection(api.rt.runnerDeps(), customersProjection);
      expect(await rows()).toEqual(live);
    } finally {
      customersMerge.wavesBeforeInOrder = configured;
    }
    await rebuildProjection(api.rt.runnerDeps(), customersProjection);
    expect(await rows()).toEqual(live);
  });
});
