import { randomUUID } from 'node:crypto';
import { hashPassword, USER_CREATED, userIdFor, userStream } from '#mds/access';
import { datatargetStream, OUTLET_CREATED, type OutletCreated } from '#mds/datatargets';
import { PROJECTIONS, waitForProjection } from '#mds/projections';
import { basic, seedUserToken, startTestApi, type TestApi } from '../support/api';
import { storedEvents } from '../support/database';
import { eventually } from '../support/eventually';
import { runCli } from '../support/processes';
import { startDelivery } from '../support/receiver';

type Json = Record<string, any>;

/**
 * Credentials never enter the log in clear, and what older releases put there in clear is sealed
 * as it is read (an upcaster): an auditor sees "[sealed]", the service still logs its users in and
 * sends its outlets' credentials.
 */
describe('sealed credentials: in the log, to auditors, and for events of earlier releases', () => {
  let api: TestApi;
  let delivery: Awaited<ReturnType<typeof startDelivery>>;
  let admin: string;
  let auditor: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: PROJECTIONS.filter((p) => p.name !== 'access'), env: { OUTLET_ALLOW_PRIVATE: 'true', OUTLET_POLL_MS: '20' } });
    admin = (await seedUserToken(api.rt, 'sealer', ['admin'], { password: 'the admin password' })).token;
    auditor = (await seedUserToken(api.rt, 'reader', ['auditor'])).token;
    delivery = await startDelivery(api.rt);
  });
  afterAll(async () => {
    await delivery?.close();
    await api?.close();
  });

  const call = (token: string, method: string, path: string, body?: unknown) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const auditEvents = async (type: string) => (await call(auditor, 'GET', `/api/audit/events/?type=${type}&limit=1000`)).body.events as Json[];
  const inLog = async () => (await storedEvents(api.rt.db.url)).map((e) => `${e.data} ${e.metadata}`).join('\n');

  it('keeps a user\'s password hash sealed: the auditor reads "[sealed]", the log holds no scrypt hash, logins work', async () => {
    const users = await auditEvents('UserCreated');
    expect(users.length).toBe(2);
    for (const u of users) expect(u.data).toEqual(expect.objectContaining({ password_hash_sealed: '[sealed]' }));
    expect(JSON.stringify(users)).not.toMatch(/scrypt\$/);
    expect(await inLog()).not.toMatch(/scrypt\$/);
    expect((await api.call('/api/access-tokens/', { method: 'POST', headers: { authorization: basic('sealer', 'the admin password') } })).status).toBe(200);
    const read = await runCli(['events', 'read', '--type', 'UserCreated'], { DATABASE_URL: api.rt.db.url, MDS_SECRET_KEY: api.rt.config.secretKey, LOG_LEVEL: 'warn' });
    expect([read.code, read.stdout]).toEqual([0, expect.stringContaining('"password_hash_sealed":"[sealed]"')]);
    expect(read.stdout).not.toMatch(/scrypt\$/);
  });

  it('seals a user of an earlier release (its hash in clear in the log) as it is read: it logs in, an auditor sees "[sealed]"', async () => {
    const hash = await hashPassword('an older password', 10);
    const userId = userIdFor('elder');
    await api.rt.store.append(userStream(userId), [
      { type: USER_CREATED, data: { user_id: userId, username: 'elder', password_hash: hash, roles: ['staff'], totp_secret_sealed: null, created_at: new Date().toISOString() }, metadata: { actor: 'cli', schema: 1 } },
    ]);
    await waitForProjection(api.rt.pool, 'access', await api.rt.store.headPosition());
    expect((await api.call('/api/access-tokens/', { method: 'POST', headers: { authorization: basic('elder', 'an older password') } })).status).toBe(200);
    expect((await api.call('/api/access-tokens/', { method: 'POST', headers: { authorization: basic('elder', 'a wrong password') } })).status).toBe(401);
    const elder = (await auditEvents('UserCreated')).find((u) => u.data.username === 'elder')!;
    expect(elder.data).toEqual({ user_id: userId, username: 'elder', password_hash_sealed: '[sealed]', roles: ['staff'], totp_secret_sealed: null, created_at: expect.any(String) });
  });

  it('seals an outlet\'s credential headers and URL credentials: in clear only on the wire, masked when shown, "[sealed]" to auditors', async () => {
    const target = (await call(admin, 'POST', '/api/datatargets/', { datatarget_type: 'messages', name: 'sealed' })).body.datatarget;
    const created = await call(admin, 'POST', `/api/datatargets/${target.id}/outlets/`, {
      outlet_type: 'webhook',
      request: {
        url: `${delivery.receiver.url}?api_key=url-secret-123456&page=2`, method: 'POST', format: 'json', content: '{(data)}', is_batched: true,
        headers: { Authorization: 'Bearer header-secret-123456', 'X-Api-Key': 'key-secret-123456', 'X-Custom-Auth': 'custom-secret-123456', 'X-Shop': 'shop-1', 'X-Partner': 'partner-secret-1234' },
        secret_headers: ['X-Partner'],
      },
    });
    expect(created.status).toBe(200);
    const outlet = created.body.outlet;
    expect(outlet.request).toEqual(expect.objectContaining({
      url: `${delivery.receiver.url}?api_key=***&page=2`,
      headers: { Authorization: '***', 'X-Api-Key': '***', 'X-Custom-Auth': '***', 'X-Shop': 'shop-1', 'X-Partner': '***' },
    }));
    expect((await call(admin, 'POST', `/api/datatargets/${target.id}/post/`, { messages: [{ n: 1 }] })).status).toBe(200);
    await eventually(() => expect(delivery.receiver.received.length).toBe(1), { timeoutMs: 20_000 });
    const got = delivery.receiver.received[0];
    expect([got.url, got.headers.authorization, got.headers['x-api-key'], got.headers['x-custom-auth'], got.headers['x-partner'], got.headers['x-shop']]).toEqual([
      '/hook?api_key=url-secret-123456&page=2', 'Bearer header-secret-123456', 'key-secret-123456', 'custom-secret-123456', 'partner-secret-1234', 'shop-1',
    ]);
    const secrets = ['url-secret-123456', 'header-secret-123456', 'key-secret-123456', 'custom-secret-123456', 'partner-secret-1234'];
    const outletEvents = JSON.stringify(await auditEvents('OutletCreated'));
    expect(outletEvents).toContain('"credentials_sealed":"[sealed]"');
    const table = JSON.stringify((await api.rt.pool.query('SELECT definition FROM outlets')).rows);
    const log = await inLog();
    const entry = await eventually(async () => {
      const res = await call(admin, 'GET', `/api/datatargets/${target.id}/outlets/${outlet.id}/log/1/`);
      expect(res.status).toBe(200);
      return res.body.entry as Json;
    });
    for (const [where, text] of [['audit API', outletEvents], ['outlets table', table], ['event log', log], ['outlet log', JSON.stringify(entry)]]) {
      expect([where, secrets.filter((s) => text.includes(s))]).toEqual([where, []]);
    }
    expect(entry.http_request).toMatch(/^POST \/hook\?api_key=\*\*\*&page=2 HTTP\/1\.1\r\n/);

    // A change of the headers alone keeps the URL's credentials; both go on being sent.
    expect((await call(admin, 'PATCH', `/api/datatargets/${target.id}/outlets/${outlet.id}/`, { request: { headers: { Authorization: 'Bearer next-secret-654321' } } })).status).toBe(200);
    expect((await call(admin, 'POST', `/api/datatargets/${target.id}/post/`, { messages: [{ n: 2 }] })).status).toBe(200);
    await eventually(() => expect(delivery.receiver.received.length).toBe(2), { timeoutMs: 20_000 });
    expect([delivery.receiver.received[1].url, delivery.receiver.received[1].headers.authorization]).toEqual(['/hook?api_key=url-secret-123456&page=2', 'Bearer next-secret-654321']);
    expect(await inLog()).not.toContain('next-secret-654321');
  });

  it('seals an outlet of an earlier release (credentials in clear in the log) as it is read, and still sends them', async () => {
    const target = (await call(admin, 'POST', '/api/datatargets/', { datatarget_type: 'messages', name: 'elder' })).body.datatarget;
    const outletId = randomUUID();
    const elder: OutletCreated = {
      outlet: {
        outlet_id: outletId, datatarget_id: target.id, outlet_type: 'webhook', is_batched: true, max_batch_size: 100, min_request_interval: '0', secret_sealed: null, created_at: new Date().toISOString(),
        request: { url: `${delivery.receiver.url}?token=old-url-secret-1&x=1`, method: 'POST', headers: { Authorization: 'Bearer old-header-secret-1' }, format: 'json', content: '{(data)}' },
      },
      last_message_number: 0,
    };
    await api.rt.store.append(datatargetStream(target.id), [{ type: OUTLET_CREATED, data: elder, metadata: { actor: 'test', schema: 1 } }]);
    await waitForProjection(api.rt.pool, 'datatargets', await api.rt.store.headPosition());
    const before = delivery.receiver.received.length;
    expect((await call(admin, 'POST', `/api/datatargets/${target.id}/post/`, { messages: [{ n: 1 }] })).status).toBe(200);
    await eventually(() => expect(delivery.receiver.received.length).toBe(before + 1), { timeoutMs: 20_000 });
    const got = delivery.receiver.received[before];
    expect([got.url, got.headers.authorization]).toEqual(['/hook?token=old-url-secret-1&x=1', 'Bearer old-header-secret-1']);
    const shown = (await auditEvents('OutletCreated')).find((e) => e.data.outlet.outlet_id === outletId)!;
    expect(shown.data.outlet.request).toEqual(expect.objectContaining({ url: `${delivery.receiver.url}?token=%5Bsealed%5D&x=1`, headers: { Authorization: '[sealed]' } }));
    expect(shown.data.outlet.credentials_sealed).toBe('[sealed]');
    const table = JSON.stringify((await api.rt.pool.query('SELECT definition FROM outlets WHERE outlet_id = $1', [outletId])).rows);
    expect([table.includes('old-url-secret-1'), table.includes('old-header-secret-1')]).toEqual([false, false]);
  });
});
