import { accessProjection, datatargetsProjection, waitForProjection } from '#mds/projections';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';

// The management endpoints' request DTOs (class-validator through Nest's ValidationPipe): every
// refusal is a 400 `invalid_request` whose message names the field, and nothing is appended.
describe('management requests validated by their DTOs', () => {
  let api: TestApi;
  let token: string;
  let target: string;
  let outlet: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: [accessProjection, datatargetsProjection] });
    token = (await seedUserToken(api.rt, 'manager', ['admin', 'superuser'])).token;
    target = (await send('POST', '/api/datatargets/', { datatarget_type: 'messages', name: 'queue' })).body.datatarget.id;
    outlet = (await send('POST', `/api/datatargets/${target}/outlets/`, { outlet_type: 'webhook', request: { url: 'https://example.com/hook' } })).body.outlet.id;
    expect([typeof target, typeof outlet]).toEqual(['string', 'string']);
  });
  afterAll(async () => {
    await api?.close();
  });

  function send(method: string, path: string, body?: unknown) {
    return api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  /** Sends each request and expects a 400 invalid_request whose message matches; the log must not grow. */
  async function refused(cases: Array<[string, string, unknown, RegExp]>) {
    const head = await api.rt.store.headPosition();
    for (const [method, path, body, message] of cases) {
      const res = await send(method, path, body);
      expect([method, path, body, res.status, res.body.error?.code]).toEqual([method, path, body, 400, 'invalid_request']);
      expect([JSON.stringify(body), res.body.error.message]).toEqual([JSON.stringify(body), expect.stringMatching(message)]);
    }
    expect(await api.rt.store.headPosition()).toBe(head);
  }

  it('refuses bad datatargets: missing and wrong fields, wrong types, unknown keys, bodies that are not objects', async () => {
    await refused([
      ['POST', '/api/datatargets/', { name: 'x' }, /^datatarget_type must be "messages" or "datasync"$/],
      ['POST', '/api/datatargets/', { datatarget_type: 'messages', name: '   ' }, /^name must be a non-empty string/],
      ['POST', '/api/datatargets/', { datatarget_type: 'messages', name: 7 }, /^name must be/],
      ['POST', '/api/datatargets/', { datatarget_type: 'messages', name: 'x', description: 'd'.repeat(2001) }, /^description must be a string of at most 2000/],
      ['POST', '/api/datatargets/', { datatarget_type: 'datasync', name: 'x', datatype: 'orders' }, /^datatype must be one of customers, products, events, sales$/],
      ['POST', '/api/datatargets/', { datatarget_type: 'datasync', name: 'x' }, /datasync datatarget needs datatype/],
      ['POST', '/api/datatargets/', { datatarget_type: 'messages', name: 'x', colour: 'red' }, /^Unknown key "colour"; allowed: datatarget_type, name, description, datatype, retention_days$/],
      ['POST', '/api/datatargets/', [{ datatarget_type: 'messages', name: 'x' }], /^The body must be a JSON object$/],
      ['PATCH', `/api/datatargets/${target}/`, { enabled: 'yes' }, /^enabled must be true or false$/],
      ['PATCH', `/api/datatargets/${target}/`, { name: null }, /^name must be a non-empty string/],
      ['PATCH', `/api/datatargets/${target}/`, {}, /^Nothing to change/],
    ]);
  });

  it('refuses bad outlets, naming the nested field, and bad operator controls', async () => {
    const outlets = `/api/datatargets/${target}/outlets/`;
    await refused([
      ['POST', outlets, { outlet_type: 'webhook' }, /^request must be an object/],
      ['POST', outlets, { outlet_type: 'sms', request: { url: 'https://example.com' } }, /^outlet_type must be "webhook"$/],
      ['POST', outlets, { request: { url: 42 } }, /^request\.url must be an http\(s\) URL/],
      ['POST', outlets, { request: { url: 'ftp://example.com/x' } }, /^request\.url must be http:\/\/ or https:\/\/$/],
      ['POST', outlets, { request: { url: 'https://user:pw@example.com/x' } }, /must not carry credentials/],
      ['POST', outlets, { request: { url: 'https://example.com', method: 'FETCH' } }, /^request\.method must be one of POST, PUT, PATCH, GET, DELETE$/],
      ['POST', outlets, { request: { url: 'https://example.com', headers: { 'Bad Name': 'x' } } }, /^request\.headers must be/],
      ['POST', outlets, { request: { url: 'https://example.com', headers: { Host: 'elsewhere' } } }, /^request\.headers: Host is set by the service$/],
      ['POST', outlets, { request: { url: 'https://example.com', verb: 'POST' } }, /^Unknown key "request\.verb"/],
      ['POST', outlets, { request: { url: 'https://example.com' }, max_batch_size: 0 }, /^max_batch_size must be a whole number from 1 to 1000$/],
      ['POST', outlets, { request: { url: 'https://example.com' }, min_request_interval: '-1' }, /^min_request_interval must be a number of seconds/],
      ['POST', outlets, { request: { url: 'https://example.com' }, secret: 'short' }, /^secret must be a string of 16 to 256 characters/],
      ['PATCH', `${outlets}${outlet}/`, { is_batched: 'true' }, /^is_batched must be true or false$/],
      ['PATCH', `${outlets}${outlet}/`, { request: { format: 'xml' } }, /^request\.format must be "json"$/],
      ['POST', `${outlets}${outlet}/rewind/`, {}, /^rewind needs \{"to_message_number": N\}/],
      ['POST', `${outlets}${outlet}/rewind/`, { to_message_number: 0 }, /^rewind needs \{"to_message_number": N\}/],
      ['POST', `${outlets}${outlet}/rewind/`, { to_message_number: '5' }, /^rewind needs \{"to_message_number": N\}/],
    ]);
  });

  it('refuses bad query parameters of retrieval and the outlet log, and a malformed run id', async () => {
    const base = `/api/datatargets/${target}`;
    await refused([
      ['GET', `${base}/retrieve/?limit=0`, undefined, /^limit must be a whole number from 1 to 10000$/],
      ['GET', `${base}/retrieve/?limit=ten`, undefined, /^limit must be a whole number from 1 to 10000$/],
      ['GET', `${base}/retrieve/?after=-3`, undefined, /^after must be a whole number from 0/],
      ['GET', `${base}/retrieve/?limit=5&limit=6`, undefined, /^limit must be a whole number/],
      ['GET', `${base}/retrieve/?since=3`, undefined, /^Unknown key "since"/],
      ['GET', `${base}/outlets/${outlet}/log/?order=up`, undefined, /^order must be ascending or descending$/],
      ['GET', `${base}/outlets/${outlet}/log/?from=x`, undefined, /^from must be a whole number/],
      ['GET', '/api/runs/not-a-run/', undefined, /^run_id must be the id an import answered with/],
    ]);
    // The defaults and the query-string token still work.
    expect((await send('GET', `${base}/retrieve/?limit=&after=`)).body).toEqual({ messages: [] });
    expect((await api.call(`${base}/retrieve/?limit=5&access-token=${token}`)).status).toBe(200);
  });

  it('refuses bad access tokens, integrations and datasources', async () => {
    const integration = (await send('POST', '/api/integrations/', { integration_name: 'shop', parameters: { name: 'Shop' } })).body.integration.id;
    await waitForProjection(api.rt.pool, 'access', await api.rt.store.headPosition());
    await refused([
      ['POST', '/api/access-tokens/', { name: 5 }, /^name must be a string of at most 200 characters$/],
      ['POST', '/api/access-tokens/', { owner_id: 17 }, /^owner_id must be "users\/<id>" or "integrations\/<id>"$/],
      ['POST', '/api/access-tokens/', { scopes: { path: '/api/x' } }, /^scopes must be a list of \{method\?, path\}$/],
      ['POST', '/api/access-tokens/', { transfer_privileges: 'yes' }, /^transfer_privileges must be true or false$/],
      ['POST', '/api/access-tokens/', { scopes: [{ path: 'no-slash' }] }, /^scopes\[0\]\.path must be a path starting with \/$/],
      ['POST', '/api/access-tokens/', { expires: '2030-01-01' }, /^Unknown key "expires"/],
      ['POST', '/api/integrations/', { parameters: 'Shop' }, /^parameters must be an object \{name, description\}/],
      ['POST', '/api/integrations/', { parameters: { name: 3 } }, /^parameters\.name must be a string of at most 200 characters$/],
      ['POST', '/api/integrations/', { integration_name: 'x'.repeat(201), parameters: { name: 'ok' } }, /^integration_name must be a string of at most 200/],
      ['POST', '/api/integrations/', { parameters: { description: 'no name' } }, /^parameters\.name is required$/],
      ['POST', '/api/datasources/', { integration, datatype: 'customers' }, /^name is required/],
      ['POST', '/api/datasources/', { name: 'src', datatype: 'customers' }, /^integration is required/],
      ['POST', '/api/datasources/', { name: 'src', integration, datatype: 'orders' }, /^datatype must be one of customers, products, events, sales$/],
    ]);
  });

  it('refuses an empty body where a body is needed, saying it is empty, and takes none where it is optional', async () => {
    const integration = (await send('POST', '/api/integrations/', { integration_name: 'empty', parameters: { name: 'Empty' } })).body.integration.id;
    await waitForProjection(api.rt.pool, 'access', await api.rt.store.headPosition());
    const datasource = (await send('POST', '/api/datasources/', { name: 'empty', integration, datatype: 'customers' })).body.datasource.id;
    const head = await api.rt.store.headPosition();
    const routes: Array<[string, string]> = [
      ['POST', '/api/datatargets/'],
      ['PATCH', `/api/datatargets/${target}/`],
      ['POST', `/api/datatargets/${target}/post/`],
      ['POST', `/api/datatargets/${target}/outlets/`],
      ['PATCH', `/api/datatargets/${target}/outlets/${outlet}/`],
      ['PATCH', '/api/settings/'],
      ['POST', '/api/data/query/'],
      ['POST', '/api/integrations/'],
      ['POST', '/api/datasources/'],
      ['POST', `/api/datasources/${datasource}/import/`],
      ['PUT', `/api/datasources/${datasource}/import/`],
    ];
    const answers = [];
    for (const [method, path] of routes) {
      for (const body of ['', '  \n']) {
        const res = await api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
        answers.push([method, path, JSON.stringify(body), res.status, res.body.error?.code, res.body.error?.message]);
      }
    }
    expect(answers).toEqual(routes.flatMap(([method, path]) => ['""', '"  \\n"'].map((body) => [method, path, body, 400, 'invalid_request', expect.stringMatching(/^The request body is empty/)])));
    expect(await api.rt.store.headPosition()).toBe(head);
    // Operator controls without a parameter and a token for oneself need no body, with or without the header.
    const pause = await api.call(`/api/datatargets/${target}/outlets/${outlet}/pause/`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '' });
    expect([pause.status, pause.body.outlet?.enabled]).toEqual([200, false]);
    const resume = await api.call(`/api/datatargets/${target}/outlets/${outlet}/resume/`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect([resume.status, resume.body.outlet?.enabled]).toEqual([200, true]);
    const minted = await api.call('/api/access-tokens/', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '' });
    expect([minted.status, minted.body.access_token?.token]).toEqual([200, expect.stringMatching(/^mds_/)]);
  });

  it('refuses settings that are not what their context accepts, and null for a setting that cannot be unset', async () => {
    await refused([
      ['PATCH', '/api/settings/', { timezone: null }, /^timezone: "null" is not an IANA time zone/],
      ['PATCH', '/api/settings/', { default_currency: 'EURO' }, /^default_currency: "EURO" is not an ISO 4217/],
      ['PATCH', '/api/settings/', { company_prefixes: 'ACME' }, /^company_prefixes must be a list of strings$/],
      ['PATCH', '/api/settings/', { custom_event_types: ['POINTS', 'bad type'] }, /^custom_event_types: "bad type" is not a capital-letter event type$/],
      ['PATCH', '/api/settings/', { colour: 'blue' }, /^Unknown setting "colour"; settings are timezone, default_country/],
    ]);
    // "" unsets the default country; a lower-case code is kept upper-cased.
    expect((await send('PATCH', '/api/settings/', { default_country: 'fi' })).body.settings.default_country).toBe('FI');
    expect((await send('PATCH', '/api/settings/', { default_country: '' })).body.settings.default_country).toBeNull();
  });
});
