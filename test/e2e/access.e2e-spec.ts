import { CreateUserCommand, CreateUserHandler, generateTotpSecret, totpCode, totpStep, UnlockUserCommand, UnlockUserHandler } from '#mds/access';
import { bootstrapAdmin } from '#mds/runtime';
import { accessProjection, rebuildProjection, waitForProjection } from '#mds/projections';
import { basic, seedUserToken, startTestApi, type TestApi } from '../support/api';
import { dumpService } from '../support/dump';
import { rawRequest } from '../support/raw-http';

const ADMIN = { username: 'root-admin', password: 'initial admin password 1' };

describe('access over HTTP', () => {
  let api: TestApi;
  let adminToken: string;
  const secrets: string[] = [ADMIN.password];

  const post = (path: string, body: unknown, headers: Record<string, string>) =>
    api.call(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const remember = <T extends { status: number; body: any }>(res: T): T => {
    if (res.body?.access_token?.token) secrets.push(res.body.access_token.token);
    return res;
  };

  beforeAll(async () => {
    api = await startTestApi({ config: { admin: ADMIN, logLevel: 'info' } });
    expect(await bootstrapAdmin(api.rt)).toBe('created');
    expect(await bootstrapAdmin(api.rt)).toBe('exists');
  });
  afterAll(async () => {
    await api?.close();
  });

  it('issues the first token to the admin from the environment by basic authentication, usable in all four forms', async () => {
    const res = remember(await post('/api/access-tokens/', undefined, { authorization: basic(ADMIN.username, ADMIN.password) }));
    expect(res.status).toBe(200);
    const t = res.body.access_token;
    expect(t).toEqual({
      id: expect.any(String),
      owner_id: expect.stringMatching(/^users\/[0-9a-f]{24}$/),
      created_at: expect.any(String),
      name: '',
      token: expect.stringMatching(/^mds_[0-9A-Za-z]{38}$/),
      hint: expect.stringMatching(/^mds_.{4}\*+.{4}$/),
      created_by: t.owner_id,
      transferred_roles: [],
      scopes: [],
      expires_at: null,
    });
    expect(t.hint).not.toContain(t.token.slice(8, -4));
    adminToken = t.token;

    const forms: Array<[string, RequestInit, string]> = [
      ['Bearer', { headers: { authorization: `Bearer ${adminToken}` } }, ''],
      ['Token', { headers: { authorization: `Token ${adminToken}` } }, ''],
      ['basic access-token', { headers: { authorization: basic('access-token', adminToken) } }, ''],
      ['query', {}, `?access-token=${adminToken}`],
    ];
    for (const [form, init, query] of forms) {
      const ok = await api.call(`/metrics${query}`, init);
      expect([form, ok.status]).toEqual([form, 200]);
      expect(ok.headers.get('cache-control')).toBe(form === 'query' ? 'private, no-store' : null);
    }
    // A token that passes the checksum but is unknown, and one that does not.
    const unknown = 'mds_' + 'A'.repeat(32);
    const wrongs = [adminToken.slice(0, -1) + (adminToken.endsWith('a') ? 'b' : 'a'), unknown];
    for (const wrong of wrongs) {
      for (const init of [
        { headers: { authorization: `Bearer ${wrong}` } },
        { headers: { authorization: `Token ${wrong}` } },
        { headers: { authorization: basic('access-token', wrong) } },
      ]) {
        const res401 = await api.call('/metrics', init);
        expect(res401.status).toBe(401);
        expect(res401.body).toEqual({ error: { code: 'unauthorized', message: 'Invalid access token' } });
      }
      expect((await api.call(`/metrics?access-token=${wrong}`)).body.error.code).toBe('unauthorized');
    }
    const none = await api.call('/metrics');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('unauthorized');
    // Unknown routes need credentials too, so the route map is not visible to strangers.
    expect((await api.call('/api/data/nothing/')).status).toBe(401);
    expect((await api.call('/api/data/nothing/', { headers: auth(adminToken) })).status).toBe(404);
    // Username + password only create tokens.
    const pw = await api.call('/metrics', { headers: { authorization: basic(ADMIN.username, ADMIN.password) } });
    expect(pw.status).toBe(401);
    expect(pw.body.error.message).toMatch(/only by POST \/api\/access-tokens/);
    const bad = await post('/api/access-tokens/', undefined, { authorization: basic(ADMIN.username, 'wrong password') });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ error: { code: 'unauthorized', message: 'Invalid username or password' } });
  });

  it('needs the current TOTP code once for users with two-factor authentication', async () => {
    const secret = generateTotpSecret();
    secrets.push(secret);
    await new CreateUserHandler(api.rt.store, api.rt.accessDeps).execute(new CreateUserCommand('totp-user', 'totp user password', ['staff'], secret));
    const creds = { authorization: basic('totp-user', 'totp user password') };
    const missing = await post('/api/access-tokens/', undefined, creds);
    expect([missing.status, missing.body.error.message]).toEqual([401, expect.stringMatching(/Service-TOTP-Code/)]);
    const step = totpStep(Date.now());
    const right = totpCode(secret, step);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
    expect((await post('/api/access-tokens/', undefined, { ...creds, 'service-totp-code': wrong })).status).toBe(401);
    const ok = remember(await post('/api/access-tokens/', undefined, { ...creds, 'service-totp-code': right }));
    expect(ok.status).toBe(200);
    const again = await post('/api/access-tokens/', undefined, { ...creds, 'service-totp-code': right });
    expect(again.status).toBe(401);
    expect(again.body.error.message).toMatch(/already used/);
    // The code from the previous step is within the drift allowed, but older than the one used.
    expect((await post('/api/access-tokens/', undefined, { ...creds, 'service-totp-code': totpCode(secret, step - 1) })).status).toBe(401);
  });

  it('limits an integration token to its scopes, under every spelling of other paths', async () => {
    const integration = await post('/api/integrations/', { integration_name: 'shop', parameters: { name: 'Web shop', description: 'WooCommerce' } }, auth(adminToken));
    expect(integration.status).toBe(200);
    expect(integration.body.integration).toMatchObject({ name: 'Web shop', integration_name: 'shop', enabled: true, description: 'WooCommerce', parameters: { name: 'Web shop', description: 'WooCommerce' } });
    expect(integration.body.integration.created_at).toMatch(/\.\d{6}Z$/);
    const id = integration.body.integration.id;

    const created = remember(
      await post('/api/access-tokens/', { name: 'shop sync', owner_id: `integrations/${id}`, scopes: [{ method: 'GET', path: '/api/data/customers/' }], transfer_privileges: false }, auth(adminToken)),
    );
    expect(created.status).toBe(200);
    // Scope paths come back as they were given (compared normalised).
    expect(created.body.access_token).toMatchObject({ owner_id: `integrations/${id}`, scopes: [{ method: 'GET', path: '/api/data/customers/' }], transferred_roles: [] });
    const scoped = { authorization: `Token ${created.body.access_token.token}` };

    // Allowed: the scope's path in any spelling of the same path. The router serves the plain spellings;
    // it does not resolve dot segments itself, so those pass the scope and then find no route (404).
    for (const [same, status] of [
      ['/api/data/customers/', 200], ['/api/data/customers', 200], ['/api/data/customers/?limit=5', 200], ['/api//data/customers/', 200],
      ['/api/data/%63ustomers/', 200], ['/api/data/./customers/', 404], ['/api/data/x/../customers/', 404],
    ] as const) {
      const res = await rawRequest(api.base, 'GET', same, scoped);
      expect([same, res.status]).toEqual([same, status]);
    }
    expect((await rawRequest(api.base, 'POST', '/api/data/customers/', scoped, '{}')).status).toBe(403);
    const others = [
      '/api/data/products/',
      '/api/data/products',
      '/API/DATA/CUSTOMERS/',
      '/api/data/Customers/',
      '/api//data//products/',
      '//api/data/products/',
      '/api/./data/products/',
      '/api/data/customers/../products/',
      '/api/data/customers/..%2Fproducts/',
      '/api/data/customers%2F..%2Fproducts/',
      '/api/data/%2e%2e/data/products/',
      '/api/data/customers/%2e%2e/products/',
      '/api/data/customers/x/',
      '/api/data/customers/123/',
      '/api/data/customers.json',
      '/api/data/customersx/',
      '/api/data/customer/',
      '/api/data/customers;/',
      '/api/data/customers%00/',
      '/api/data/customers/..',
      '/api/data/',
      '/api/',
      '/',
      '/api/data/events/?path=/api/data/customers/',
      '/api/data/products/?x=/api/data/customers/',
      '/api/integrations/',
      '/api/access-tokens/',
      '/metrics',
      '/api/data/products/.',
    ];
    for (const path of others) {
      const res = await rawRequest(api.base, 'GET', path, scoped);
      expect([path, res.status, res.body?.error?.code]).toEqual([path, 403, 'forbidden']);
    }
    expect(others.length).toBeGreaterThanOrEqual(20);

    // An integration token without transferred roles cannot manage access.
    expect((await rawRequest(api.base, 'POST', '/api/access-tokens/', { authorization: `Bearer ${created.body.access_token.token}` }, '{}')).status).toBe(403);
  });

  it('scopes one datatarget retrieve path exactly', async () => {
    const me = await seedUserToken(api.rt, 'dt-reader', ['staff'], { scopes: [{ path: '/api/datatargets/abc/retrieve/' }] });
    secrets.push(me.token);
    const h = { authorization: `Bearer ${me.token}` };
    expect((await rawRequest(api.base, 'GET', '/api/datatargets/abc/retrieve/?after=3', h)).status).toBe(404); // route comes with [5/10]
    for (const p of ['/api/datatargets/abd/retrieve/', '/api/datatargets/abc/', '/api/datatargets/abc/retrieve/x/', '/api/datatargets/abc/post/', '/api/datatargets/']) {
      expect([p, (await rawRequest(api.base, 'GET', p, h)).status]).toEqual([p, 403]);
    }
    // A scoped token cannot mint a token that reaches further than its own scopes.
    const wider = await rawRequest(api.base, 'POST', '/api/access-tokens/', h, JSON.stringify({ scopes: [] }));
    expect(wider.status).toBe(403);
  });

  it('transfers the creator roles when transfer_privileges is true, and checks roles per endpoint', async () => {
    const integration = await post('/api/integrations/', { parameters: { name: 'ERP' } }, auth(adminToken));
    const res = remember(await post('/api/access-tokens/', { name: 'erp admin', owner_id: `integrations/${integration.body.integration.id}`, transfer_privileges: true }, auth(adminToken)));
    expect(res.body.access_token.transferred_roles).toEqual(['admin', 'superuser']);
    // With transferred roles the integration token may manage integrations.
    expect((await post('/api/integrations/', { parameters: { name: 'by erp' } }, auth(res.body.access_token.token))).status).toBe(200);

    const staff = await seedUserToken(api.rt, 'staff-1', ['staff']);
    const auditor = await seedUserToken(api.rt, 'auditor-1', ['auditor']);
    secrets.push(staff.token, auditor.token);
    const denied = await post('/api/integrations/', { parameters: { name: 'x' } }, auth(staff.token));
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toMatch(/access:manage/);
    expect((await api.call('/metrics', { headers: auth(auditor.token) })).status).toBe(200);
    // A user creates tokens for itself, not for others.
    const own = remember(await post('/api/access-tokens/', { name: 'mine' }, auth(staff.token)));
    expect(own.status).toBe(200);
    expect(own.body.access_token.owner_id).toBe(`users/${staff.userId}`);
    expect((await post('/api/access-tokens/', { owner_id: `users/${auditor.userId}` }, auth(staff.token))).status).toBe(403);
    expect((await post('/api/access-tokens/', { owner_id: 'integrations/nope' }, auth(adminToken))).status).toBe(422);
    expect((await post('/api/access-tokens/', { scopes: [{ path: 'no-slash' }] }, auth(staff.token))).body.error.code).toBe('invalid_request');
  });

  it('locks an account after 100 failed logins in a row until it is unlocked', async () => {
    await new CreateUserHandler(api.rt.store, api.rt.accessDeps).execute(new CreateUserCommand('victim', 'the real password', ['staff']));
    for (let i = 0; i < 100; i++) {
      expect((await post('/api/access-tokens/', undefined, { authorization: basic('victim', `guess ${i}`) })).status).toBe(401);
    }
    const locked = await post('/api/access-tokens/', undefined, { authorization: basic('victim', 'the real password') });
    expect(locked.status).toBe(403);
    expect(locked.body.error).toEqual({ code: 'account_locked', message: expect.stringMatching(/locked after 100 failed logins.*mds users unlock victim/) });
    await new UnlockUserHandler(api.rt.store, api.rt.accessDeps).execute(new UnlockUserCommand('victim'));
    expect(remember(await post('/api/access-tokens/', undefined, { authorization: basic('victim', 'the real password') })).status).toBe(200);
  });

  it('keeps tokens and scopes through a rebuild of the access projection', async () => {
    const fresh = remember(await post('/api/access-tokens/', { name: 'after rebuild', scopes: [{ method: 'GET', path: '/metrics' }] }, auth(adminToken)));
    const dump = async () => (await api.rt.pool.query(`SELECT token_id, token_hash, owner_id, scopes, transferred_roles FROM access_tokens ORDER BY token_id`)).rows;
    const before = await dump();
    const result = await rebuildProjection(api.rt.runnerDeps(), accessProjection);
    expect(result.retired).toBeDefined();
    await waitForProjection(api.rt.pool, 'access', await api.rt.store.headPosition());
    expect(await dump()).toEqual(before);
    // Looked up in the rebuilt tables.
    expect((await api.call('/metrics', { headers: auth(fresh.body.access_token.token) })).status).toBe(200);
  });

  it('stores no token, password or TOTP secret in clear: not in any table, the event log or the logs', async () => {
    // Every row of every table, and the event log wherever it is.
    const dump = (await dumpService(api.rt.db.url)).text;
    expect(dump).toContain('AccessTokenCreated');
    expect(secrets.length).toBeGreaterThan(8);
    for (const secret of [...secrets, 'correct horse battery', 'totp user password', 'the real password']) {
      expect(dump.includes(secret)).toBe(false);
      expect(api.rt.logLines.some((l) => l.includes(secret))).toBe(false);
    }
  });
});
