import { createServer, type Server } from 'node:http';
import { totpCode, totpStep } from '#mds/access';
import { PROJECTIONS, rebuildProjection, waitForProjection } from '#mds/projections';
import { basic, seedUserToken, startTestApi, type TestApi } from '../support/api';
import { storedEvents } from '../support/database';
import { dumpService } from '../support/dump';
import { eventually } from '../support/eventually';
import { runCli } from '../support/processes';
import { startDelivery } from '../support/receiver';

type Json = Record<string, any>;

/**
 * Canaries: known secrets and personal values go through every path (imports of every kind, outlet
 * headers and URLs, a receiver that echoes what it gets, filters, every spelling of the token, a
 * password login with TOTP), then are searched for in the database (pg_dump, or every row), the
 * event log, the service's log lines, `mds audit export` and every answer an auditor can read. No
 * secret is anywhere; once the person is forgotten and every projection rebuilt, nothing personal
 * of theirs is either (their external id aside: the shop's key, kept as documented).
 */
describe('canaries: nothing secret lasts, nothing personal outlives forgetting', () => {
  let api: TestApi;
  let delivery: Awaited<ReturnType<typeof startDelivery>>;
  let echo: Server;
  let echoUrl: string;
  let admin: string;
  let auditor: string;
  const cliOutput: string[] = [];

  const PASSWORD = 'canary-password-Q7r9';
  const TOTP = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
  const SECRETS = {
    bearer: 'canary-bearer-71a9c3',
    apiKey: 'canary-apikey-82b4d5',
    customAuth: 'canary-custom-93c5e6',
    urlKey: 'canary-urlkey-14d6f7',
    signing: 'whsec_Y2FuYXJ5LXNpZ25pbmctc2VjcmV0LTI1',
  };
  const person = {
    external_id: 'CANARY-1', email: 'Canary.Person@example.org', phone_number: '+358 40 765 4321', first_name: 'Canarius', last_name: 'Birdsong',
    street_address: 'Yellow Wing Road 12', city: 'Tweetville', zip_code: 'TW9 7QX', birth_date: '1977-07-07', cb_token: 'cb-canary-4411',
    can_email: true, consent_source: 'kiosk-canary-6620',
  };
  const personal = ['canary.person', '765 4321', '407654321', 'Canarius', 'Birdsong', 'Yellow Wing', 'Tweetville', 'TW9 7QX', '1977-07-07', 'cb-canary-4411', 'kiosk-canary-6620'];

  const call = (token: string, method: string, path: string, body?: unknown, accept = 'application/json') =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept }, body: body === undefined ? undefined : JSON.stringify(body) });
  const completed = async (res: { status: number; body: Json }) => {
    expect([res.status, res.body.errors ?? []]).toEqual([200, []]);
    await eventually(async () => expect((await call(admin, 'GET', `/api/runs/${res.body.run_id}/`)).body.state).toBe('completed'), { timeoutMs: 30_000 });
  };
  const caughtUp = async () => {
    const head = await api.rt.store.headPosition();
    for (const p of PROJECTIONS) await waitForProjection(api.rt.pool, p.name, head, { timeoutMs: 30_000 });
  };
  const found = (text: string, values: string[]) => values.filter((v) => text.toLowerCase().includes(v.toLowerCase()));
  const cliEnv = () => ({ DATABASE_URL: api.rt.db.url, MDS_SECRET_KEY: api.rt.config.secretKey, LOG_LEVEL: 'debug' });

  /** Every page of a list an auditor reads, following next_url. */
  async function pages(path: string): Promise<string> {
    const texts: string[] = [];
    for (let next: string | null = path; next; ) {
      const res = await call(auditor, 'GET', next);
      expect(res.status).toBe(200);
      texts.push(res.text);
      next = res.body.next_url ?? null;
    }
    return texts.join('\n');
  }
  /** Everything the service keeps or shows: the database and log, its log lines, an audit export, what an auditor reads. */
  async function everywhere(): Promise<Record<string, string>> {
    const exported = await runCli(['audit', 'export'], cliEnv());
    cliOutput.push(exported.stderr);
    expect(exported.code).toBe(0);
    const auditorReads = [
      await pages('/api/audit/events/?limit=500'),
      await pages('/api/data/customers/?limit=500'),
      await pages('/api/data/events/?limit=500'),
      await pages('/api/data/sales/?limit=500'),
      await pages('/api/campaign/actions/?limit=100'),
      // The person's consent history and export (each export recorded in the log): 404 once forgotten.
      (await call(auditor, 'GET', `/api/data/customers/${person.external_id}/consent/`)).text,
      (await call(auditor, 'GET', `/api/data/customers/${person.external_id}/export/`)).text,
      (await call(auditor, 'GET', `/api/data/customers/${person.external_id}/export/`, undefined, 'application/x-ndjson')).text,
      (await call(auditor, 'GET', '/metrics')).text,
      (await api.call('/health')).text,
    ].join('\n');
    return { dump: (await dumpService(api.rt.db.url)).text, logs: [...api.rt.logLines, ...cliOutput].join('\n'), export: exported.stdout, auditor: auditorReads };
  }

  beforeAll(async () => {
    api = await startTestApi({ projections: PROJECTIONS.filter((p) => p.name !== 'access'), env: { OUTLET_ALLOW_PRIVATE: 'true', OUTLET_POLL_MS: '20' }, config: { logLevel: 'debug' } });
    admin = (await seedUserToken(api.rt, 'canary-admin', ['admin'], { password: PASSWORD, totp: TOTP })).token;
    auditor = (await seedUserToken(api.rt, 'canary-auditor', ['auditor'])).token;
    delivery = await startDelivery(api.rt);
    // A receiver that echoes everything it got, request line and headers included, in its reply.
    echo = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ url: req.url, headers: req.headers, body }));
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    echoUrl = `http://127.0.0.1:${(echo.address() as { port: number }).port}/hook`;
  });
  afterAll(async () => {
    await delivery?.close();
    await new Promise((r) => echo?.close(r));
    await api?.close();
  });

  it('sends every canary through every path', async () => {
    // A password login with TOTP; the admin's token in every spelling the API takes.
    const login = await api.call('/api/access-tokens/', { method: 'POST', headers: { authorization: basic('canary-admin', PASSWORD), 'service-totp-code': totpCode(TOTP, totpStep(Date.now())) } });
    expect(login.status).toBe(200);
    const loginToken = login.body.access_token.token as string;
    // The spelling the spec names, and encoded: both authenticate; others are refused, and logged all the same.
    for (const spelling of ['access-token', 'access%2Dtoken']) expect([spelling, (await api.call(`/api/data/shops/?${spelling}=${loginToken}`)).status]).toEqual([spelling, 200]);
    for (const spelling of ['ACCESS-TOKEN', 'token', 'access_token', 'accessToken']) expect((await api.call(`/api/data/shops/?${spelling}=${loginToken}`)).status).toBeLessThan(500);
    // A datasync datatarget delivering to the echoing receiver, with credentials in headers and URL, signed.
    const target = (await call(admin, 'POST', '/api/datatargets/', { datatarget_type: 'datasync', datatype: 'customers', name: 'canary' })).body.datatarget;
    const created = await call(admin, 'POST', `/api/datatargets/${target.id}/outlets/`, {
      outlet_type: 'webhook',
      secret: SECRETS.signing,
      request: {
        url: `${echoUrl}?api_key=${SECRETS.urlKey}&page=1`, method: 'POST', format: 'json', content: '{(data)}', is_batched: true,
        headers: { Authorization: `Bearer ${SECRETS.bearer}`, 'X-Api-Key': SECRETS.apiKey, 'X-Custom-Auth': SECRETS.customAuth, 'X-Plain': 'visible' },
      },
    });
    expect(created.status).toBe(200);
    // Read back: every credential masked, the rest as sent.
    expect(created.body.outlet.request).toMatchObject({ url: `${echoUrl}?api_key=***&page=1`, headers: { Authorization: '***', 'X-Api-Key': '***', 'X-Custom-Auth': '***', 'X-Plain': 'visible' } });
    // Imports of every kind naming the person; filters and a history path with their e-mail and phone.
    await completed(await call(admin, 'POST', '/api/customers/upload/', { customers: [person] }));
    await completed(await call(admin, 'POST', '/api/events/upload/', { events: [{ type: 'BROWSE', date: '2026-04-01T10:00:00Z', email: person.email, phone_number: person.phone_number, path: '/p', first_name: person.first_name }] }));
    await completed(await call(admin, 'POST', '/api/sales/upload/', { sales: [{ sale_external_id: 'CANARY-S1', sale_date: '2026-04-02T10:00:00Z', sale_email: person.email, sale_phone_number: person.phone_number, product_id: 'P1', quantity: 1, unit_price: 990 }] }));
    await completed(await call(admin, 'POST', '/api/campaigns/upload/', { campaigns: [{ campaign_key: 'CANARY-C', kind: 'email', name: 'Canary', state: 'ACTIVE', activated_at: '2026-04-01T00:00:00Z' }] }));
    await completed(await call(admin, 'POST', '/api/campaigns/events/upload/', { events: [{ campaign_key: 'CANARY-C', type: 'sent', date: '2026-04-01T09:00:00Z', email: person.email }] }));
    expect((await call(admin, 'GET', `/api/data/customers/?email=${encodeURIComponent(person.email)}`)).body.customers).toHaveLength(1);
    expect((await call(admin, 'GET', `/api/data/events/?email=${encodeURIComponent(person.email)}`)).status).toBe(200);
    expect((await call(admin, 'GET', `/api/data/customers/${encodeURIComponent(person.email)}/history/`)).status).toBeLessThan(500);
    // The receiver got the record and the credentials, and echoed them back.
    await eventually(async () => expect((await call(admin, 'GET', `/api/datatargets/${target.id}/outlets/${created.body.outlet.id}/`)).body.outlet.last_delivered_message_number).toBeGreaterThanOrEqual(1), { timeoutMs: 30_000 });
    await caughtUp();
    // The echoed reply, with the person's record in it, is kept beside the log, never in it.
    const entry = (await call(admin, 'GET', `/api/datatargets/${target.id}/outlets/${created.body.outlet.id}/log/1/`)).body.entry;
    expect(entry.http_reply).toContain('Canarius');
    expect(entry.http_reply).toContain('api_key=***');
    expect(found((await storedEvents(api.rt.db.url)).map((e) => `${e.data} ${e.metadata}`).join('\n'), personal)).toEqual([]);

    const seen = await everywhere();
    const secretValues = [PASSWORD, TOTP, loginToken, admin, ...Object.values(SECRETS)];
    for (const [where, text] of Object.entries(seen)) expect([where, found(text, secretValues)]).toEqual([where, []]);
    // The scrypt hash: neither in clear anywhere (it is sealed) nor as the auditors' old `password_hash`.
    for (const [where, text] of Object.entries(seen)) expect([where, /scrypt\$\d+\$/.test(text), text.includes('"password_hash"')]).toEqual([where, false, false]);
    // Before forgetting, the personal values are there to be found (the test would see them stay).
    expect(found(seen.dump, personal)).toEqual(personal);
    expect(found(seen.auditor, personal)).toEqual(personal);
  });

  it('forgets the person and rebuilds every projection: no canary is anywhere', async () => {
    await completed(await call(admin, 'POST', '/api/customers/upload/', { customers: [{ external_id: person.external_id, is_forgotten: true }] }));
    await caughtUp();
    for (const p of PROJECTIONS) await rebuildProjection(api.rt.runnerDeps(), p);
    await caughtUp();
    const seen = await everywhere();
    for (const [where, text] of Object.entries(seen)) expect([where, found(text, personal)]).toEqual([where, []]);
    for (const path of ['consent', 'export']) expect([path, (await call(auditor, 'GET', `/api/data/customers/${person.external_id}/${path}/`)).status]).toEqual([path, 404]);
    for (const [where, text] of Object.entries(seen)) expect([where, found(text, [PASSWORD, TOTP, admin, ...Object.values(SECRETS)])]).toEqual([where, []]);
  });
});
