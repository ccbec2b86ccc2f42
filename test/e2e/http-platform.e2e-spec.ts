import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ProbeModule } from '../fixtures/probe.module';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import type { TestRuntime } from '../support/runtime';

/** Route paths the Fastify router serves, without trailing slashes and HEAD duplicates. */
function fastifyRoutes(app: NestFastifyApplication): string[] {
  const printed = app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false });
  const paths = new Set<string>();
  for (const line of printed.split('\n')) {
    const m = /([/][^ ]*) \(([A-Z, ]+)\)/.exec(line.replace(/^[\s│├└─]+/, ''));
    if (m && m[1] !== '/' && m[1] !== '*') paths.add(m[1].replace(/\/$/, ''));
  }
  return [...paths];
}

describe('HTTP platform (real HTTP on loopback)', () => {
  let api: TestApi;
  let rt: TestRuntime;
  let app: NestFastifyApplication;
  let base: string;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi({ env: { MDS_BODY_LIMIT: '64KiB' }, contexts: [ProbeModule], config: { logLevel: 'info' } });
    ({ rt, app, base } = api);
    ({ token } = await seedUserToken(rt, 'platform-admin', ['admin']));
  });
  afterAll(async () => {
    await api?.close();
  });

  async function call(path: string, init: RequestInit = {}) {
    const headers = new Headers(init.headers);
    if (!headers.has('authorization') && !path.includes('access-token=')) headers.set('authorization', `Bearer ${token}`);
    const res = await fetch(`${base}${path}`, { ...init, headers });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: res.status, body: body as { error?: { code: string; message: string } } & Record<string, unknown>, headers: res.headers };
  }

  const json = (body: string, contentType = 'application/json'): RequestInit => ({ method: 'POST', headers: { 'content-type': contentType }, body });

  it('answers an unknown route with 404 not_found in the error envelope', async () => {
    const res = await call('/api/no-such-thing/');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'No route for GET /api/no-such-thing/' } });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers malformed JSON with 400 invalid_request', async () => {
    const res = await call('/api/probe/echo/', json('{"customers": [1, 2,'));
    expect(res.status).toBe(400);
    expect((await call('/api/probe/echo/', json('{"__proto__": {"admin": true}}'))).status).toBe(400);
    expect(res.body.error?.code).toBe('invalid_request');
    expect(res.body.error?.message).toMatch(/^Malformed JSON in request body: .*JSON/);
    // A leading byte-order mark is not part of the JSON.
    const bom = await call('/api/probe/echo/', json('\ufeff{"a": 1}'));
    expect([bom.status, bom.body]).toEqual([201, { received: { a: 1 } }]);
  });

  it('refuses bodies nested deeper than 64 levels with 400 on every route, appending nothing', async () => {
    const head = await rt.store.headPosition();
    const arrays = '['.repeat(10_000) + ']'.repeat(10_000);
    const objects = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const inRecord = JSON.stringify({ customers: [{ external_id: 'deep', note: JSON.parse('['.repeat(70) + ']'.repeat(70)) }] });
    const answers: unknown[] = [];
    const expected: unknown[] = [];
    for (const path of ['/api/customers/upload/', '/api/events/upload/', '/api/datatargets/', '/api/data/query/', '/api/probe/echo/']) {
      for (const body of [arrays, objects, inRecord]) {
        const res = await call(path, json(body));
        answers.push([path, body.slice(0, 12), res.status, res.body]);
        expected.push([path, body.slice(0, 12), 400, { error: { code: 'invalid_request', message: expect.stringContaining('64 levels') } }]);
      }
    }
    expect(answers).toEqual(expected);
    const settings = await call('/api/settings/', { ...json(objects), method: 'PATCH' });
    expect([settings.status, settings.body.error?.code]).toEqual([400, 'invalid_request']);
    // 64 levels are still a body: the limit refuses depth, not structure.
    const atLimit = JSON.parse('['.repeat(63) + '1' + ']'.repeat(63));
    expect((await call('/api/probe/echo/', json(JSON.stringify({ a: atLimit })))).status).toBe(201);
    expect((await call('/api/probe/echo/', json(JSON.stringify({ a: [atLimit] })))).status).toBe(400);
    // Brackets inside strings, escaped quotes among them, are text.
    const text = { note: `${'['.repeat(100)}\\"${'{'.repeat(100)}\\`, b: '"]' };
    expect((await call('/api/probe/echo/', json(JSON.stringify(text)))).body).toEqual({ received: text });
    expect(await rt.store.headPosition()).toBe(head);
  });

  it('answers a body over the limit with 413 and names the limit', async () => {
    const big = JSON.stringify({ customers: [{ note: 'x'.repeat(70 * 1024) }] });
    const res = await call('/api/probe/echo/', json(big));
    expect(res.status).toBe(413);
    expect(res.body.error?.code).toBe('payload_too_large');
    expect(res.body.error?.message).toContain('64 KiB');
    const justUnder = JSON.stringify({ note: 'y'.repeat(60 * 1024) });
    expect((await call('/api/probe/echo/', json(justUnder))).status).toBe(201);
  });

  it('answers an unsupported content type with 415', async () => {
    const res = await call('/api/probe/echo/', json('<customers/>', 'application/xml'));
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ error: { code: 'unsupported_media_type', message: expect.stringContaining('application/json') } });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      expect((await call('/api/probe/echo/', json('{"a":1}', type))).status).toBe(415);
    }
    expect((await call('/api/probe/echo/', json('{"a":1}', 'application/json; charset=utf-8'))).body).toEqual({ received: { a: 1 } });
    expect((await call('/api/probe/echo/', json('{"a":1}', 'application/vnd.api+json'))).body).toEqual({ received: { a: 1 } });
  });

  it('answers an internal error with 500 and no stack trace or internals', async () => {
    const res = await call('/api/probe/explode/', { headers: { 'x-request-id': 'req-explode-1' } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: 'internal_error', message: 'Internal server error (request id req-explode-1)' } });
    expect(JSON.stringify(res.body)).not.toMatch(/secret|\/srv|stack/);
    // The fault itself is in the log, tied to the request id.
    expect(rt.logLines.some((l) => l.includes('req-explode-1') && l.includes('secret internal detail'))).toBe(true);
  });

  it('serves every route with and without the trailing slash', async () => {
    expect((await call('/api/probe/echo', json('{"a":1}'))).body).toEqual({ received: { a: 1 } });
    expect((await call('/api/probe/echo/', json('{"a":2}'))).body).toEqual({ received: { a: 2 } });
    expect((await call('/health')).status).toBe(200);
    expect((await call('/health/')).status).toBe(200);
    expect((await call('/api//probe/echo/', json('{"a":3}'))).body).toEqual({ received: { a: 3 } });
  });

  it('reports the database and event log on /health without authentication', async () => {
    await rt.store.append('health-1', [{ type: 'Checked', data: {} }]);
    const res = await call('/health', { headers: { authorization: '' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', database: { status: 'ok' }, event_log: { status: 'ok', kind: process.env.MDS_TEST_EVENT_LOG === 'esdb-double' ? 'esdb' : 'postgres', head_position: await rt.store.headPosition() } });
  });

  it('exposes Prometheus metrics: request counts and latency by route, projection lag', async () => {
    await call('/health');
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(text).toMatch(/mds_http_requests_total\{method="GET",route="\/health",status="200"\} \d+/);
    expect(text).toMatch(/mds_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/health"\} \d+/);
    expect(text).toMatch(/mds_event_log_head_position \d+/);
    expect(text).toContain('# TYPE mds_projection_lag_events gauge');
  });

  it('serves the OpenAPI document and its UI at /api/docs/', async () => {
    const doc = await call('/api/docs/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body).toMatchObject({ openapi: expect.stringMatching(/^3\./), info: { title: 'Marketing Data Service API' } });
    // Every endpoint of the service is documented.
    const routes = new Set<string>();
    fastifyRoutes(app).forEach((r) => routes.add(r));
    const documented = Object.keys(doc.body.paths as object).map((p) => p.replace(/\{(\w+)\}/g, ':$1'));
    const endpoints = [...routes].filter((r) => ((r.startsWith('/api/') && !r.startsWith('/api/docs')) || r === '/health' || r === '/metrics') && !r.startsWith('/api/probe'));
    expect(endpoints.length).toBeGreaterThanOrEqual(12);
    const undocumented = endpoints.filter((r) => !documented.includes(r));
    expect(undocumented).toEqual([]);
    expect(documented).toEqual(expect.arrayContaining(['/health', '/metrics', '/api/access-tokens', '/api/integrations', '/api/customers/upload', '/api/data/customers', '/api/runs/:run_id', '/api/settings']));
    const ui = await fetch(`${base}/api/docs/`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toMatch(/swagger-ui/i);
  });

  it('echoes or assigns a request id and logs one structured line per request with query-string tokens redacted', async () => {
    const given = await call('/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const assigned = await call('/health');
    expect(assigned.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    await call('/health?access-token=mds_supersecretvalue', { headers: { authorization: 'Bearer mds_headersecret' } });
    await call(`/api/no-such-thing/?access-token=${token}`);
    const lines = rt.logLines.filter((l) => l.includes('"msg":"request"'));
    const line = lines.find((l) => l.includes('access-token='));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ method: 'GET', status: 200, url: '/health?access-token=[REDACTED]', reqId: expect.any(String) });
    expect(rt.logLines.join('\n')).not.toMatch(/supersecretvalue|headersecret/);
    expect(rt.logLines.join('\n')).not.toContain(token);
  });

  it('logs no token, whatever its spelling, and no e-mail or phone of a filter or a customer path', async () => {
    const encoded = (await call(`/api/data/shops/?access%2Dtoken=${token}&limit=5`)).status;
    // The parser reads access%2Dtoken as access-token: the request authenticates.
    expect(encoded).toBe(200);
    expect((await call(`/api/data/shops/?%61ccess-token=${token}&access-token=${token}`)).status).toBe(401);
    expect((await call('/api/data/customers/?email=jane.doe%40example.com&limit=5')).status).toBe(200);
    expect((await call('/api/data/customers/?phone_number=%2B31612345678&tags=vip')).status).toBe(200);
    expect((await call('/api/data/customers/jane.doe%40example.com/history/?limit=5')).status).toBe(404);
    expect((await call('/api/data/customers/+31612345678/history')).status).toBe(404);
    const urls = rt.logLines.filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l).url as string);
    expect(urls).toEqual(
      expect.arrayContaining([
        '/api/data/shops/?access%2Dtoken=[REDACTED]&limit=5',
        '/api/data/shops/?%61ccess-token=[REDACTED]&access-token=[REDACTED]',
        '/api/data/customers/?email=[personal]&limit=5',
        '/api/data/customers/?phone_number=[personal]&tags=vip',
        '/api/data/customers/[personal]/history/?limit=5',
        '/api/data/customers/[personal]/history',
      ]),
    );
    const logged = rt.logLines.join('\n');
    for (const secret of [token, 'jane.doe', '31612345678']) expect(logged).not.toContain(secret);
  });
});

describe('request log lines above the info level', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi({ contexts: [ProbeModule], config: { logLevel: 'warn' } });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('writes no line for an answered request, and an error line, with its redacted URL, for a 500', async () => {
    const { token } = await seedUserToken(api.rt, 'warn-admin', ['admin']);
    expect((await fetch(`${api.base}/health`)).status).toBe(200);
    expect((await fetch(`${api.base}/api/probe/explode/?access-token=mds_supersecretvalue`)).status).toBe(401);
    expect((await fetch(`${api.base}/api/probe/explode/?access-token=${token}`, { headers: { 'x-request-id': 'req-warn-500' } })).status).toBe(500);
    const lines = api.rt.logLines.filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([expect.objectContaining({ level: 'error', status: 500, reqId: 'req-warn-500', url: '/api/probe/explode/?access-token=[REDACTED]' })]);
  });
});
