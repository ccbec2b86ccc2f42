import { shopsProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { stamped, unstamped } from '../support/records';
import { followPages } from '../support/paging';

describe('shops, settings and the import-run pattern over HTTP', () => {
  let api: TestApi;
  let admin: string;
  let staff: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: [shopsProjection] });
    admin = (await seedUserToken(api.rt, 'shop-admin', ['admin'])).token;
    staff = (await seedUserToken(api.rt, 'shop-staff', ['staff'])).token;
  });
  afterAll(async () => {
    await api?.close();
  });

  const send = (method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });

  it('reads default settings and lets only admins change them, validating every key', async () => {
    expect((await send('GET', '/api/settings/', staff)).body).toEqual({
      settings: { timezone: 'UTC', default_country: null, default_currency: 'EUR', company_prefixes: [], custom_event_types: [], personal_company_fields: [] },
    });
    expect((await send('PATCH', '/api/settings/', staff, { timezone: 'Europe/Helsinki' })).status).toBe(403);
    const changed = await send('PATCH', '/api/settings', admin, { timezone: 'Europe/Helsinki', default_country: 'fi', company_prefixes: ['ACME'], custom_event_types: ['LOYALTY_POINTS'], personal_company_fields: ['ACME__card'] });
    expect(changed.status).toBe(200);
    expect(changed.body.settings).toEqual({ timezone: 'Europe/Helsinki', default_country: 'FI', default_currency: 'EUR', company_prefixes: ['ACME'], custom_event_types: ['LOYALTY_POINTS'], personal_company_fields: ['ACME__card'] });
    expect((await send('GET', '/api/settings/', staff)).body.settings.timezone).toBe('Europe/Helsinki');
    for (const [patch, message] of [
      [{ timezone: 'Mars/Olympus' }, /IANA time zone/],
      [{ default_country: 'XX' }, /ISO 3166/],
      [{ default_currency: 'EURO' }, /ISO 4217/],
      [{ custom_event_types: ['BROWSE'] }, /built-in/],
      [{ company_prefixes: ['AC__ME'] }, /company name/],
      [{ personal_company_fields: ['card'] }, /personal_company_fields: "card" is not a <COMPANY>__<field> key/],
      [{ colour: 'blue' }, /Unknown setting "colour"/],
      [{}, /No settings/],
    ] as const) {
      const res = await send('PATCH', '/api/settings/', admin, patch);
      expect([res.status, res.body.error.code]).toEqual([400, 'invalid_request']);
      expect(res.body.error.message).toMatch(message);
    }
  });

  it('imports shops with partial acceptance, reports the run, and serves them merged', async () => {
    const res = await send('POST', '/api/shops/upload/', staff, {
      shops: [
        { external_id: 1, name: 'Main store', store_code: 'default', locale: 'en_US' },
        { name: 'no id' },
        { external_id: 'eu', name: 'EU store', region: null },
        { external_id: 1, locale: 'fi_FI', store_code: '' },
        'not an object',
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      response: 'ok',
      run_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      run_url: `/api/runs/${res.body.run_id}/?wait=30`,
      accepted: 3,
      rejected: 2,
      errors: [
        { index: 1, field: 'external_id', code: 'required', message: 'external_id is required' },
        { index: 4, field: null, code: 'invalid_record', message: 'a shop must be an object' },
      ],
    });
    const run = await eventually(async () => {
      const r = await send('GET', `/api/runs/${res.body.run_id}/`, staff);
      if (r.body.state !== 'completed') throw new Error(`run is ${r.body.state}`);
      return r;
    });
    expect(run.body).toMatchObject({ run_id: res.body.run_id, kind: 'shops', state: 'completed', received: 5, accepted: 3, rejected: 2, completed_at: expect.any(String) });
    const shops = await send('GET', '/api/data/shops/', staff);
    // Later records of one request override earlier ones key by key; "" removed store_code; null was absent.
    expect({ ...shops.body, shops: shops.body.shops.map((s: object) => unstamped(s)) }).toEqual({
      shops: [
        { external_id: '1', name: 'Main store', locale: 'fi_FI' },
        { external_id: 'eu', name: 'EU store' },
      ],
      count: 2,
      next_url: null,
    });
    expect((await send('GET', '/api/data/shops/?name=EU%20store', staff)).body.shops).toEqual([stamped({ external_id: 'eu', name: 'EU store' }, 'eu')]);
    expect((await send('GET', '/api/runs/00000000-0000-4000-8000-000000000000/', staff)).status).toBe(404);
  });

  it('refuses a request with no valid record, or any invalid one when atomic, appending nothing', async () => {
    const head = await api.rt.store.headPosition();
    const none = await send('POST', '/api/shops/upload/', staff, { shops: [{ name: 'x' }, { external_id: 2.5 }] });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ code: 'invalid_request', message: 'No record could be imported (2 rejected)' });
    expect(none.body.error.details).toEqual([
      { index: 0, field: 'external_id', code: 'required', message: 'external_id is required' },
      { index: 1, field: 'external_id', code: 'invalid_id', message: 'external_id: an id must be a string or a whole number, got 2.5' },
    ]);
    const atomic = await send('POST', '/api/shops/upload/?atomic=true', staff, { shops: [{ external_id: 'ok' }, { name: 'bad' }] });
    expect(atomic.status).toBe(400);
    expect(atomic.body.error.message).toMatch(/atomic=true/);
    expect(await api.rt.store.headPosition()).toBe(head);
    expect((await send('POST', '/api/shops/upload/', staff, { shops: 'x' })).status).toBe(400);
    expect((await send('POST', '/api/shops/upload/', staff, [{ external_id: 'bare' }])).status).toBe(400);
    expect((await send('POST', '/api/shops/upload/', staff, { stores: [] })).body.error.message).toMatch(/"shops" is missing/);
  });

  it('answers an empty list or a null list with a run of zero records, and a null body with 400', async () => {
    for (const body of [{ shops: [] }, { shops: null }, {}]) {
      const res = await send('POST', '/api/shops/upload/', staff, body);
      expect(res.body).toMatchObject({ response: 'ok', accepted: 0, rejected: 0, errors: [] });
    }
    // JSON that is not an object is no request of this API (test/fixtures/hostile).
    expect((await send('POST', '/api/shops/upload/', staff, null)).body).toEqual({ error: { code: 'invalid_request', message: 'The body must be {"shops": [...]}, not null' } });
  });

  it('replays the first answer for a repeated Idempotency-Key and refuses the key with another body', async () => {
    const body = { shops: [{ external_id: 'idem', name: 'Once' }] };
    const first = await send('POST', '/api/shops/upload/', staff, body, { 'idempotency-key': 'key-1' });
    const head = await api.rt.store.headPosition();
    const again = await send('POST', '/api/shops/upload/', staff, body, { 'idempotency-key': 'key-1' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await api.rt.store.headPosition()).toBe(head);
    const other = await send('POST', '/api/shops/upload/', staff, { shops: [{ external_id: 'idem', name: 'Twice' }] }, { 'idempotency-key': 'key-1' });
    expect(other.status).toBe(422);
    // Keys are per caller: another token's key-1 is another run.
    const byAdmin = await send('POST', '/api/shops/upload/', admin, body, { 'idempotency-key': 'key-1' });
    expect(byAdmin.body.run_id).not.toBe(first.body.run_id);
    // Concurrent retries of one key append once.
    const racing = await Promise.all(Array.from({ length: 5 }, () => send('POST', '/api/shops/upload/', staff, { shops: [{ external_id: 'race' }] }, { 'idempotency-key': 'key-race' })));
    expect(new Set(racing.map((r) => r.body.run_id)).size).toBe(1);
    expect(racing.every((r) => r.status === 200)).toBe(true);
    const run = await api.rt.store.readStream(`import-${racing[0].body.run_id}`);
    expect(run.filter((e) => e.type === 'ImportRunAccepted')).toHaveLength(1);
  });

  it('pages shops with next_url, nothing lost or repeated', async () => {
    const shops = Array.from({ length: 250 }, (_, i) => ({ external_id: `p${String(i).padStart(3, '0')}`, name: `Shop ${i}` }));
    const res = await send('POST', '/api/shops/upload/', staff, { shops });
    await eventually(async () => (await send('GET', `/api/runs/${res.body.run_id}/`, staff)).body.state === 'completed');
    const pages = await followPages<{ external_id: string }>((path) => send('GET', path, staff), '/api/data/shops/?limit=40', 'shops');
    const seen = pages.flat().map((s) => s.external_id);
    const ids = seen.filter((id) => id.startsWith('p'));
    expect(ids).toEqual(shops.map((s) => s.external_id));
    expect(new Set(seen).size).toBe(seen.length);
    expect((await send('GET', '/api/data/shops/?limit=0', staff)).status).toBe(400);
    expect((await send('GET', '/api/data/shops/?limit=10001', staff)).status).toBe(400);
    const badKey = await send('GET', '/api/data/shops/?name%20%3D%201=x', staff);
    expect([badKey.status, badKey.body.error.message]).toEqual([400, 'Unknown query parameter "name = 1"; accepted: limit, after, access-token, include_deleted, external_id, name, <COMPANY>__<field>']);
  });
});
