import { createApiApp } from '#mds/api';
import { openRuntime, type Runtime } from '#mds/runtime';
import { accessProjection, rebuildProjection, waitForProjection } from '#mds/projections';
import type { AppConfig } from '#mds/platform';
import { httpCaller, seedUserToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';
import { followPages } from '../support/paging';
import { runCli } from '../support/processes';
import { captureLogger } from '../support/runtime';
import { answerTimestamp } from '#mds/platform';

type Call = TestApi['call'];

/**
 * A second API process on the first one's database (and event log): its own Nest app, pool and
 * notification connection, no projector. What one process does, the other must honour at once.
 */
async function secondApi(first: TestApi, config: Partial<AppConfig> = {}): Promise<{ rt: Runtime; call: Call; close(): Promise<void> }> {
  const rt = await openRuntime({ ...first.rt.config, ...config }, { logger: captureLogger([], 'warn'), projections: [], role: 'second-api', poolSize: 4 });
  const app = await createApiApp(rt);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    rt,
    call: httpCaller(base),
    async close() {
      await app.close();
      await rt.close();
    },
  };
}

const auth = (token: string, init: RequestInit = {}): RequestInit => ({ ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` } });
const json = (method: string, body: unknown, token: string): RequestInit => auth(token, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('operator controls for credentials', () => {
  let a: TestApi;
  let b: Awaited<ReturnType<typeof secondApi>>;
  let admin: Awaited<ReturnType<typeof seedUserToken>>;
  let staff: Awaited<ReturnType<typeof seedUserToken>>;
  let auditor: Awaited<ReturnType<typeof seedUserToken>>;

  const mint = async (token: string, body: Record<string, unknown> = {}) => {
    const res = await a.call('/api/access-tokens/', json('POST', body, token));
    expect([res.status, res.body.error]).toEqual([200, undefined]);
    return res.body.access_token as { id: string; token: string; hint: string; expires_at: string | null };
  };
  const auditEvents = async (query: string) => (await a.call(`/api/audit/events/?limit=1000&${query}`, auth(auditor.token))).body.events as Array<{ type: string; data: any; metadata: any }>;
  /**
   * A token revoked elsewhere, asked through `api` until refused: a process refuses it once the access
   * projection's announcement reaches it (ADR 11), milliseconds later, which on a busy machine can
   * come after the client's next request. 3 s is far inside the 10 s it could keep it.
   */
  const refusedThrough = (api: { call: Call }, token: string, path = '/metrics') =>
    eventually(async () => {
      const res = await api.call(path, auth(token));
      expect([res.status, res.body.error?.message]).toEqual([401, 'This access token was revoked']);
    }, { timeoutMs: 3000, intervalMs: 5 });

  beforeAll(async () => {
    a = await startTestApi();
    b = await secondApi(a);
    admin = await seedUserToken(a.rt, 'controls-admin', ['admin']);
    staff = await seedUserToken(a.rt, 'controls-staff', ['staff']);
    auditor = await seedUserToken(a.rt, 'controls-auditor', ['auditor']);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('lists tokens, never their values: an admin sees all, others their own, paged with next_url', async () => {
    const mine = await mint(staff.token, { name: 'staff second' });
    const res = await a.call('/api/access-tokens/', auth(staff.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_tokens: expect.any(Array), next_url: null });
    expect(res.body.access_tokens.map((t: { id: string }) => t.id)).toEqual([staff.tokenId, mine.id]);
    expect(res.body.access_tokens[1]).toEqual({
      id: mine.id,
      owner_id: `users/${staff.userId}`,
      name: 'staff second',
      hint: mine.hint,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
      created_by: `users/${staff.userId}`,
      transferred_roles: [],
      scopes: [],
      expires_at: null,
      last_used_at: null,
      revoked_at: null,
      revoked_by: null,
    });
    expect(res.text).not.toContain(mine.token);
    // Someone else's tokens: only an admin sees them.
    expect((await a.call(`/api/access-tokens/?owner_id=users/${admin.userId}`, auth(staff.token))).status).toBe(403);
    expect((await a.call(`/api/access-tokens/${admin.tokenId}/`, auth(staff.token))).status).toBe(403);
    expect((await a.call(`/api/access-tokens/${mine.id}/`, auth(staff.token))).body.access_token.name).toBe('staff second');
    const everyone = await followPages<{ id: string }>((p) => a.call(p, auth(admin.token)), '/api/access-tokens/?limit=2', 'access_tokens');
    expect(everyone.length).toBeGreaterThanOrEqual(2);
    expect(everyone.flat().map((t) => t.id)).toEqual(expect.arrayContaining([admin.tokenId, staff.tokenId, auditor.tokenId, mine.id]));
    const staffs = (await a.call(`/api/access-tokens/?owner_id=users/${staff.userId}`, auth(admin.token))).body.access_tokens;
    expect(staffs.map((t: { id: string }) => t.id)).toEqual([staff.tokenId, mine.id]);
    for (const [query, message] of [
      ['limit=0', /^limit must be a whole number from 1 to 1000/],
      ['owner_id=bob', /^owner_id must be users\/<id> or integrations\/<id>$/],
      ['include_revoked=yes', /^include_revoked must be true or false$/],
      ['colour=red', /^Unknown key "colour"/],
    ] as const) {
      const bad = await a.call(`/api/access-tokens/?${query}`, auth(admin.token));
      expect([query, bad.status, bad.body.error?.code, bad.body.error?.message]).toEqual([query, 400, 'invalid_request', expect.stringMatching(message)]);
    }
  });

  it('revokes a token in every API process: the other one refuses it as soon as the announcement reaches it', async () => {
    const victim = await mint(staff.token, { name: 'to revoke' });
    // Used through the second process first, so anything it kept of the token would now be stale.
    for (let i = 0; i < 3; i++) expect((await b.call('/metrics', auth(victim.token))).status).toBe(200);
    const revoked = await a.call(`/api/access-tokens/${victim.id}/`, auth(staff.token, { method: 'DELETE' }));
    expect(revoked.status).toBe(200);
    expect(revoked.body.access_token).toMatchObject({ id: victim.id, revoked_at: expect.any(String), revoked_by: `users/${staff.userId}` });
    // The process that revoked it refuses it at once; the other once told.
    expect((await a.call('/metrics', auth(victim.token))).status).toBe(401);
    await refusedThrough(b, victim.token);
    expect((await b.call('/metrics', auth(victim.token))).body).toEqual({ error: { code: 'unauthorized', message: 'This access token was revoked' } });
    // Again: nothing more happens; revoked tokens leave the list unless asked for.
    expect((await a.call(`/api/access-tokens/${victim.id}/`, auth(staff.token, { method: 'DELETE' }))).body.access_token.revoked_at).toBe(revoked.body.access_token.revoked_at);
    const listed = async (query: string) => (await a.call(`/api/access-tokens/${query}`, auth(staff.token))).body.access_tokens.map((t: { id: string }) => t.id);
    expect(await listed('')).not.toContain(victim.id);
    expect(await listed('?include_revoked=true')).toContain(victim.id);
  });

  // Each API process keeps the settings it read (10 s at most); a change is announced to the others.
  it('changes settings for every API process: the one that changed them answers the new ones at once, the other once told', async () => {
    const country = async (api: { call: Call }) => (await api.call('/api/settings/', auth(admin.token))).body.settings.default_country as string | null;
    const before = await country(b); // kept by the second process from here
    const next = before === 'SE' ? 'FI' : 'SE';
    const changed = await a.call('/api/settings/', json('PATCH', { default_country: next }, admin.token));
    expect([changed.status, changed.body.settings?.default_country]).toEqual([200, next]);
    expect(await country(a)).toBe(next);
    // Well inside the keep time: only the announcement can make the second process read them again.
    await eventually(async () => expect(await country(b)).toBe(next), { timeoutMs: 3000, intervalMs: 20 });
    const restored = await b.call('/api/settings/', json('PATCH', { default_country: before }, admin.token));
    expect(restored.status).toBe(200);
    await eventually(async () => expect(await country(a)).toBe(before), { timeoutMs: 3000, intervalMs: 20 });
  });

  it('answers 404 for an unknown token, 403 for someone else\'s; an admin revokes anyone\'s, and an auditor sees who revoked what', async () => {
    const unknown = await a.call('/api/access-tokens/00000000-0000-4000-8000-000000000000/', auth(admin.token, { method: 'DELETE' }));
    expect([unknown.status, unknown.body.error]).toEqual([404, { code: 'not_found', message: 'No access token 00000000-0000-4000-8000-000000000000' }]);
    expect((await a.call('/api/access-tokens/not%20an%20id/', auth(admin.token, { method: 'DELETE' }))).status).toBe(404);
    const adminsOwn = await mint(admin.token, { name: 'admin spare' });
    const denied = await a.call(`/api/access-tokens/${adminsOwn.id}/`, auth(staff.token, { method: 'DELETE' }));
    expect([denied.status, denied.body.error?.code]).toEqual([403, 'forbidden']);
    expect((await a.call('/metrics', auth(adminsOwn.token))).status).toBe(200);

    const staffs = await mint(staff.token, { name: 'revoked by the admin' });
    expect((await b.call(`/api/access-tokens/${staffs.id}/`, auth(admin.token, { method: 'DELETE' }))).status).toBe(200);
    expect((await a.call('/metrics', auth(staffs.token))).status).toBe(401);
    const events = await auditEvents('type=AccessTokenRevoked');
    const byAdmin = events.find((e) => e.data.token_id === staffs.id);
    expect(byAdmin).toMatchObject({
      data: { token_id: staffs.id, owner_id: `users/${staff.userId}`, revoked_by: `users/${admin.userId}`, reason: 'revoked', at: expect.any(String) },
      metadata: { actor: `users/${admin.userId}`, token_id: admin.tokenId, request_id: expect.any(String) },
    });
    expect(events.filter((e) => e.data.token_id === adminsOwn.id)).toEqual([]);
  });

  it('records a use as an event: the first, then at most one a minute per token and process, and lists last_used_at from it', async () => {
    const fresh = await mint(staff.token, { name: 'used' });
    const usesOf = async (id: string) => (await auditEvents('type=AccessTokenUsed')).filter((e) => e.data.token_id === id);
    expect(await usesOf(fresh.id)).toEqual([]);
    for (let i = 0; i < 5; i++) expect((await a.call('/metrics', auth(fresh.token))).status).toBe(200);
    // A refused request is no use of the token.
    expect((await a.call('/api/integrations/', auth(fresh.token))).status).toBe(403);
    const uses = await usesOf(fresh.id);
    expect(uses).toEqual([
      expect.objectContaining({ type: 'AccessTokenUsed', stream: `token-use-${fresh.id}`, data: { token_id: fresh.id, at: expect.any(String) }, metadata: expect.objectContaining({ actor: `users/${staff.userId}`, token_id: fresh.id }) }),
    ]);
    const listed = await eventually(async () => {
      const t = (await a.call(`/api/access-tokens/${fresh.id}/`, auth(staff.token))).body.access_token;
      if (t.last_used_at === null) throw new Error('not yet');
      return t;
    });
    expect(listed.last_used_at).toBe(answerTimestamp(uses[0].data.at));
    // The other process records its own first use; after that, neither records more within the minute.
    // The other process finds the use in the read model: neither records another within the minute.
    for (let i = 0; i < 3; i++) expect((await b.call('/metrics', auth(fresh.token))).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await a.call('/metrics', auth(fresh.token))).status).toBe(200);
    expect(await usesOf(fresh.id)).toHaveLength(1);
  });

  it('expires tokens: expires_in or expires_at on creation, 401 saying it expired, and bad values refused naming the field', async () => {
    const short = await mint(staff.token, { name: 'short', expires_in: 3 });
    expect(Date.parse(short.expires_at!)).toBeGreaterThan(Date.now() - 1000);
    expect((await b.call('/metrics', auth(short.token))).status).toBe(200);
    const expired = await eventually(async () => {
      const res = await b.call('/metrics', auth(short.token));
      if (res.status !== 401) throw new Error(String(res.status));
      return res;
    });
    expect(expired.body).toEqual({ error: { code: 'unauthorized', message: `This access token expired at ${short.expires_at}` } });

    const sent = new Date(Date.now() + 3_600_000).toISOString();
    const at = answerTimestamp(sent);
    const later = await mint(staff.token, { expires_at: sent });
    expect(later.expires_at).toBe(at);
    expect((await a.call(`/api/access-tokens/${later.id}/`, auth(staff.token))).body.access_token.expires_at).toBe(at);
    // A token that expires creates only tokens that expire no later: by default when it does.
    expect((await mint(later.token, { name: 'child' })).expires_at).toBe(at);
    const outliving = await a.call('/api/access-tokens/', json('POST', { expires_in: 7200 }, later.token));
    expect([outliving.status, outliving.body.error?.code]).toEqual([403, 'forbidden']);

    for (const [body, message] of [
      [{ expires_at: at, expires_in: 60 }, /^Send expires_at or expires_in, not both$/],
      [{ expires_at: '2020-01-01T00:00:00Z' }, /^expires_at must be in the future$/],
      [{ expires_at: 'tomorrow' }, /^expires_at must be an ISO 8601 time with a zone/],
      [{ expires_at: 1893456000 }, /^expires_at must be an ISO 8601 time with a zone/],
      [{ expires_in: 0 }, /^expires_in must be a whole number of seconds from 1 to 315360000/],
      [{ expires_in: '60' }, /^expires_in must be a whole number/],
      [{ expires_in: 315360001 }, /^expires_in must be a whole number/],
    ] as const) {
      const res = await a.call('/api/access-tokens/', json('POST', body, staff.token));
      expect([body, res.status, res.body.error?.code, res.body.error?.message]).toEqual([body, 400, 'invalid_request', expect.stringMatching(message)]);
    }
  });

  it('lists integrations with their tokens\' hints; disabling one revokes its tokens in every process', async () => {
    const created = await a.call('/api/integrations/', json('POST', { integration_name: 'woo', parameters: { name: 'Web shop', description: 'WooCommerce' } }, admin.token));
    const id = created.body.integration.id;
    expect(created.body.integration.tokens).toEqual([]);
    const sync = await mint(admin.token, { name: 'sync', owner_id: `integrations/${id}`, scopes: [{ method: 'GET', path: '/api/data/customers/' }] });
    const other = await mint(admin.token, { name: 'backup', owner_id: `integrations/${id}` });
    expect((await b.call('/api/data/customers/', auth(sync.token))).status).toBe(200);

    const list = await a.call('/api/integrations/', auth(admin.token));
    expect(list.status).toBe(200);
    expect(list.body.next_url).toBeNull();
    const shown = list.body.integrations.find((i: { id: string }) => i.id === id);
    expect(shown).toMatchObject({ id, name: 'Web shop', description: 'WooCommerce', created_at: created.body.integration.created_at, enabled: true });
    // (The sync token's last use is there once the read model has it.)
    expect(shown.tokens).toEqual([
      { id: sync.id, name: 'sync', hint: sync.hint, created_at: expect.any(String), expires_at: null, last_used_at: shown.tokens[0]?.last_used_at ?? null, scopes: [{ method: 'GET', path: '/api/data/customers/' }] },
      { id: other.id, name: 'backup', hint: other.hint, created_at: expect.any(String), expires_at: null, last_used_at: null, scopes: [] },
    ]);
    expect(list.text).not.toContain(sync.token);

    const disabled = await a.call(`/api/integrations/${id}/`, json('PATCH', { enabled: false }, admin.token));
    expect(disabled.status).toBe(200);
    expect(disabled.body.integration).toMatchObject({ id, enabled: false, tokens: [] });
    for (const token of [sync.token, other.token]) await refusedThrough(b, token, '/api/data/customers/');
    const revocations = (await auditEvents('type=AccessTokenRevoked')).filter((e) => [sync.id, other.id].includes(e.data.token_id));
    expect(revocations.map((e) => [e.data.token_id, e.data.reason, e.data.revoked_by])).toEqual([
      [sync.id, 'integration_disabled', `users/${admin.userId}`],
      [other.id, 'integration_disabled', `users/${admin.userId}`],
    ]);
    expect((await auditEvents('type=IntegrationDisabled')).map((e) => e.data)).toEqual([{ integration_id: id, by: `users/${admin.userId}`, at: expect.any(String) }]);
    // No new tokens while disabled; enabling again brings none of the old ones back.
    const refused = await a.call('/api/access-tokens/', json('POST', { owner_id: `integrations/${id}` }, admin.token));
    expect([refused.status, refused.body.error?.code]).toEqual([409, 'conflict']);
    expect((await a.call(`/api/integrations/${id}/`, json('PATCH', { enabled: true }, admin.token))).body.integration.enabled).toBe(true);
    expect((await b.call('/api/data/customers/', auth(sync.token))).status).toBe(401);
    const renewed = await mint(admin.token, { owner_id: `integrations/${id}` });
    expect((await b.call('/api/data/customers/', auth(renewed.token))).status).toBe(200);

    for (const [path, body, status, message] of [
      [`/api/integrations/${id}/`, { enabled: 'no' }, 400, /^enabled must be true or false$/],
      [`/api/integrations/${id}/`, { enabled: false, name: 'x' }, 400, /^Unknown key "name"/],
      ['/api/integrations/00000000-0000-4000-8000-000000000000/', { enabled: false }, 404, /^No integration/],
    ] as const) {
      const res = await a.call(path, json('PATCH', body, admin.token));
      expect([body, res.status, res.body.error?.message]).toEqual([body, status, expect.stringMatching(message)]);
    }
    expect((await a.call(`/api/integrations/${id}/`, json('PATCH', { enabled: false }, staff.token))).status).toBe(403);
  });

  it('keeps revocations, expiry, last uses and disabled integrations through a rebuild of the access projection', async () => {
    const dump = async () => ({
      tokens: (await a.rt.pool.query('SELECT * FROM access_tokens ORDER BY token_id')).rows,
      integrations: (await a.rt.pool.query('SELECT * FROM access_integrations ORDER BY integration_id')).rows,
    });
    await waitForProjection(a.rt.pool, 'access', await a.rt.store.headPosition());
    const before = await dump();
    expect(before.tokens.some((t) => t.revoked_at instanceof Date && t.last_used_at instanceof Date)).toBe(true);
    await rebuildProjection(a.rt.runnerDeps(), accessProjection);
    await waitForProjection(a.rt.pool, 'access', await a.rt.store.headPosition());
    expect(await dump()).toEqual(before);
  });

  describe('mds tokens', () => {
    const env = () => ({ DATABASE_URL: a.rt.db.url, LOG_LEVEL: 'warn', MDS_SECRET_KEY: 'c'.repeat(64), MDS_PASSWORD_HASH_COST: '10' });

    it('lists tokens (a table, or JSON lines as the API lists them) and revokes one, which every API process refuses at once', async () => {
      const target = await mint(staff.token, { name: 'cli target' });
      expect((await b.call('/metrics', auth(target.token))).status).toBe(200);
      const lines = await runCli(['tokens', 'list', '--json', '--user', 'controls-staff'], env());
      expect([lines.code, lines.stderr]).toEqual([0, '']);
      const fromCli = lines.stdout.trim().split('\n').map((l) => JSON.parse(l));
      expect(fromCli).toEqual((await a.call('/api/access-tokens/?limit=1000', auth(staff.token))).body.access_tokens);
      expect(fromCli.map((t: { id: string }) => t.id)).toContain(target.id);
      const table = await runCli(['tokens', 'list'], env());
      expect(table.stdout).toMatch(/^ID +OWNER +NAME +HINT +CREATED +LAST USED +EXPIRES\n/);
      expect(table.stdout).toContain(target.hint);
      expect(table.stdout).not.toContain(target.token);

      const revoked = await runCli(['tokens', 'revoke', target.id], env());
      expect([revoked.code, revoked.stderr]).toEqual([0, '']);
      expect(revoked.stdout).toBe(`revoked token ${target.id} (${target.hint} of users/${staff.userId}); every API process refuses it from now on\n`);
      // Revoked by the CLI's process: both API processes refuse it once told.
      await refusedThrough(b, target.token);
      await refusedThrough(a, target.token);
      expect((await auditEvents('type=AccessTokenRevoked')).find((e) => e.data.token_id === target.id)).toMatchObject({ data: { revoked_by: 'cli' }, metadata: { actor: 'cli' } });
      expect((await runCli(['tokens', 'revoke', target.id], env())).stdout).toMatch(/^already revoked: token /);
      expect((await runCli(['tokens', 'list', '--all', '--user', 'controls-staff'], env())).stdout).toMatch(new RegExp(`${target.id} .* by cli`));
      const unknown = await runCli(['tokens', 'revoke', '00000000-0000-4000-8000-000000000000'], env());
      expect([unknown.code, unknown.stderr]).toEqual([1, 'mds: No access token 00000000-0000-4000-8000-000000000000\n']);
    }, 60_000);
  });
});

describe('rate limits across API processes', () => {
  let a: TestApi;
  let b: Awaited<ReturnType<typeof secondApi>>;

  beforeAll(async () => {
    a = await startTestApi({ env: { MDS_RATE_LIMIT_PER_MINUTE: '5' } });
    b = await secondApi(a);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('counts a token\'s requests in every process together, with the same headers and 429', async () => {
    const busy = await seedUserToken(a.rt, 'busy-two', ['admin']);
    const calm = await seedUserToken(a.rt, 'calm-two', ['admin']);
    // The windows are whole minutes: do not start the six requests just before one ends.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    const seen: Array<[number, string | null]> = [];
    for (const api of [a, b, a, b, b]) {
      const res = await api.call('/metrics', auth(busy.token));
      seen.push([res.status, res.headers.get('ratelimit-remaining')]);
      expect(res.headers.get('ratelimit-limit')).toBe('5');
      expect(res.headers.get('ratelimit-policy')).toBe('5;w=60');
    }
    expect(seen).toEqual([[200, '4'], [200, '3'], [200, '2'], [200, '1'], [200, '0']]);
    for (const api of [a, b]) {
      const limited = await api.call('/metrics', auth(busy.token));
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(/^Rate limit of 5 requests a minute for this token exceeded; retry after \d+ s$/) } });
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.headers.get('ratelimit-reset')).toBe(String(retryAfter));
    }
    // Another token has its own budget, in either process.
    expect((await b.call('/metrics', auth(calm.token))).status).toBe(200);
  });
});
