import * as net from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PROJECTIONS } from '#mds/projections';
import { bodyCases, headerFlood, IMPORTS, queryCases, queryOf, recordCases, type HostileCase } from '../fixtures/hostile/corpus';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';

interface Route {
  method: string;
  path: string;
}

// The hostile corpus (test/fixtures/hostile) against every route that takes a body and every route
// that reads: each request gets a 4xx in the envelope, the log does not move, no prototype is touched,
// and the service answers as before afterwards. The requests are counted by kind, and none is a 5xx.
describe('hostile input on every route', () => {
  let api: TestApi;
  let token: string;
  let routes: Route[];
  const ids: Record<string, string> = {};
  const answers: Array<{ route: string; name: string; status: number; body: unknown; message?: RegExp }> = [];
  // The hostile requests sent, by kind (which cases on which routes), and every 5xx among them.
  const sent: Record<string, { cases: Set<string>; routes: Set<string>; requests: number }> = {};
  const serverErrors: string[] = [];

  const raw = async (method: string, path: string, c: Pick<HostileCase, 'body' | 'contentType' | 'headers'> | undefined) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...c?.headers };
    if (c && c.contentType !== null) headers['content-type'] = c.contentType ?? 'application/json';
    const res = await fetch(`${api.base}${path}`, { method, headers, body: c?.body });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // kept as text: the assertion below names it
    }
    return { status: res.status, body };
  };
  /** `raw`, counted under `kind` with the case's name and the route (the path without its query); a 5xx is kept for the last test. */
  const hostile = async (kind: string, name: string, method: string, path: string, c: Pick<HostileCase, 'body' | 'contentType' | 'headers'> | undefined) => {
    const answer = await raw(method, path, c);
    count(kind, name, `${method} ${path.split('?')[0]}`, answer.status, messageOf(answer));
    return answer;
  };
  const count = (kind: string, name: string, route: string, status: number, message = '') => {
    const tally = (sent[kind] ??= { cases: new Set(), routes: new Set(), requests: 0 });
    tally.cases.add(name);
    tally.routes.add(route);
    tally.requests++;
    if (status >= 500) serverErrors.push(`${kind}: ${route} ${name}: ${status} ${message}`.trim());
  };
  const refusedProperly = (a: { status: number; body: unknown }) =>
    a.status >= 400 && a.status < 500 && typeof (a.body as { error?: { code?: unknown } })?.error?.code === 'string' && typeof (a.body as { error: { message?: unknown } }).error.message === 'string';
  const messageOf = (a: { body: unknown }) => String((a.body as { error?: { message?: unknown } })?.error?.message ?? '');
  const readingRoutes = () => routes.filter((r) => r.method === 'GET' && !r.path.startsWith('/api/docs') && r.path !== '/health');
  const bodyRoutes = () => routes.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method));
  /** Every body case on every route that takes a body (the heavy ones, 5 MB and a gzip bomb, on one upload and one management route). */
  const sendBodyCorpus = async (each: (route: Route, c: HostileCase, answer: { status: number; body: unknown }) => void = () => undefined) => {
    const heavyOn = new Set(['/api/customers/upload/', `/api/datatargets/${ids.datatarget_id}/post/`]);
    const cases = bodyCases(); // built once: the gzip bomb alone takes ~0.4 s to compress
    const tasks = bodyRoutes().flatMap((route) => cases.filter((c) => !c.heavy || heavyOn.has(route.path)).map((c) => ({ route, c })));
    // A few at a time, as clients come: the corpus is ~900 requests a pass, most of them refused at once.
    let next = 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (next < tasks.length) {
          const { route, c } = tasks[next++];
          each(route, c, await hostile('body cases', c.name, route.method, route.path, c));
        }
      }),
    );
  };

  beforeAll(async () => {
    api = await startTestApi({ projections: PROJECTIONS });
    token = (await seedUserToken(api.rt, 'hostile-admin', ['admin', 'superuser'])).token;
    const send = (method: string, path: string, body: unknown) => raw(method, path, { body: JSON.stringify(body) });
    ids.datatarget_id = ((await send('POST', '/api/datatargets/', { datatarget_type: 'messages', name: 'target' })).body as { datatarget: { id: string } }).datatarget.id;
    ids.outlet_id = (
      (await send('POST', `/api/datatargets/${ids.datatarget_id}/outlets/`, { outlet_type: 'webhook', request: { url: 'https://example.invalid/hook', method: 'POST', format: 'json', content: '{(data)}', is_batched: true } })).body as { outlet: { id: string } }
    ).outlet.id;
    ids.integration_id = ((await send('POST', '/api/integrations/', { integration_name: 'shop', parameters: { name: 'shop', description: 'x' } })).body as { integration: { id: string } }).integration.id;
    ids.action = 'rewind';
    const doc = (await (await fetch(`${api.base}/api/docs/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m)).map((m) => ({ method: m.toUpperCase(), path: path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? 'x') })),
    );
    expect(routes.length).toBeGreaterThan(40);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  it('refuses every hostile body on every route that takes one, with a 4xx envelope, and appends nothing', async () => {
    const head = await api.rt.store.headPosition();
    const withBody = bodyRoutes();
    await sendBodyCorpus((route, c, answer) => answers.push({ route: `${route.method} ${route.path}`, name: c.name, ...answer, message: c.message }));
    // A case with a `message` must be refused for its own reason, not another.
    const wrong = answers.filter((a) => !refusedProperly(a) || (a.message && !a.message.test(messageOf(a)))).map((a) => `${a.route} ${a.name}: ${a.status} ${JSON.stringify(a.body).slice(0, 160)}`);
    expect(wrong).toEqual([]);
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(await api.rt.store.headPosition()).toBe(head);
    // Nothing reached a prototype, here (the API runs in this process) or in what is stored.
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    console.log(`hostile bodies: ${answers.length} requests on ${withBody.length} routes, all 4xx (${[...new Set(answers.map((a) => a.status))].sort().join(', ')}), none 5xx`);
  }, 300_000);

  it('refuses records with hostile values one by one, naming each, on every import route', async () => {
    const head = await api.rt.store.headPosition();
    const wrong: string[] = [];
    for (const route of IMPORTS) {
      for (const c of recordCases(route)) {
        if (c.heavy && route.key !== 'customers') continue;
        const a = await hostile('record cases', c.name, 'POST', route.path, { body: c.body });
        const listed = ((a.body as { error?: { details?: Array<{ index: number }> } }).error?.details ?? []).map((d) => d.index);
        const named = c.records > 1000 ? a.status === 413 : a.status === 400 && new Set(listed).size === c.records;
        if (!refusedProperly(a) || !named) wrong.push(`${route.path} ${c.name}: ${a.status} ${JSON.stringify(a.body).slice(0, 600)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(await api.rt.store.headPosition()).toBe(head);
  }, 300_000);

  it('refuses query floods and NUL characters on every route that reads, and a header flood before any route', async () => {
    const wrong: string[] = [];
    for (const route of readingRoutes()) {
      for (const q of queryCases()) {
        const a = await hostile('query cases', q.name, 'GET', `${route.path}?${q.query}`, undefined);
        if (!refusedProperly(a)) wrong.push(`${route.path} ${q.name}: ${a.status} ${JSON.stringify(a.body).slice(0, 160)}`);
      }
    }
    expect(wrong).toEqual([]);
    const { port } = new URL(api.base);
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(`GET /api/data/customers/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n${headerFlood()}\r\n\r\n`));
      let text = '';
      socket.on('data', (d) => (text += d));
      socket.on('end', () => resolve(text));
      socket.on('error', (err) => (text ? resolve(text) : reject(err)));
    });
    count('header cases', '10,000 header lines', 'GET /api/data/customers/', Number(reply.slice(9, 12)));
    expect(reply).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toEqual({ error: { code: 'invalid_request', message: expect.stringContaining('headers') } });
  }, 300_000);

  it('refuses more than 100 query parameters on every route that reads, naming the limit, and takes 100', async () => {
    const wrong: string[] = [];
    const answeredAtLimit: string[] = [];
    for (const route of readingRoutes()) {
      const over = await hostile('query limit', '101 query parameters', 'GET', `${route.path}?${queryOf(101)}`, undefined);
      const refused = over.body as { error?: { code?: string; message?: string } };
      if (over.status !== 400 || refused.error?.code !== 'invalid_request' || refused.error.message !== 'A request may have at most 100 query parameters') {
        wrong.push(`${route.path} 101: ${over.status} ${JSON.stringify(over.body).slice(0, 160)}`);
      }
      const atLimit = await hostile('query limit', '100 query parameters', 'GET', `${route.path}?${queryOf(100)}`, undefined);
      if (atLimit.status >= 500 || /at most 100 query parameters/.test(messageOf(atLimit))) wrong.push(`${route.path} 100: ${atLimit.status} ${JSON.stringify(atLimit.body).slice(0, 160)}`);
      if (atLimit.status === 200) answeredAtLimit.push(route.path);
    }
    expect(wrong).toEqual([]);
    // Data lists take company-field filters, so they answer 100 of them (the others refuse the unknown keys).
    expect(answeredAtLimit).toEqual(expect.arrayContaining(['/api/data/customers', '/api/data/products', '/api/data/events', '/api/data/sales']));
  }, 300_000);

  it('keeps memory flat: the body corpus sent twice more leaves the memory of the process (the API runs in it) where it was', async () => {
    setFlagsFromString('--expose_gc');
    const gc = runInNewContext('gc') as () => void;
    // Collected until nothing more goes (a collection can free what closes only after it, such as
    // the last requests' sockets and their buffers).
    const used = async () => {
      let last = Number.POSITIVE_INFINITY;
      for (;;) {
        gc();
        await new Promise((resolve) => setImmediate(resolve));
        const m = process.memoryUsage();
        const now = (m.heapUsed + m.external) / 1024 ** 2;
        if (now >= last - 0.5) return now;
        last = now;
      }
    };
    const before = await used();
    await sendBodyCorpus();
    await sendBodyCorpus();
    const after = await used();
    console.log(`hostile input: heap and external memory ${before.toFixed(1)} MiB before two more passes of the body corpus, ${after.toFixed(1)} MiB after`);
    // Two passes vary by about a MiB; a request keeping 20 KB of its body (a leak put in to check) shows 6 MiB.
    expect(after - before).toBeLessThan(5);
  }, 300_000);

  it('still answers as before: health, an import, a read with no key the corpus sent', async () => {
    expect((await fetch(`${api.base}/health`)).status).toBe(200);
    const ok = await raw('POST', '/api/customers/upload/', { body: JSON.stringify({ customers: [{ external_id: 'after-1', first_name: 'Still here', preferences: { theme: 'dark' } }] }) });
    expect(ok.status).toBe(200);
    // The corpus's __proto__ objects carried is_admin: it is on no record that comes back, as a key
    // or inherited, at the top or nested.
    const read = await eventually(async () => {
      const res = await fetch(`${api.base}/api/data/customers/?external_id=after-1`, { headers: { authorization: `Bearer ${token}` } });
      const text = await res.text();
      expect(JSON.parse(text).customers).toHaveLength(1);
      return text;
    });
    expect(read).not.toMatch(/is_admin|isAdmin|__proto__|polluted/);
    const customer = (JSON.parse(read) as { customers: Array<Record<string, unknown> & { preferences: Record<string, unknown> }> }).customers[0];
    expect(customer).toMatchObject({ external_id: 'after-1', first_name: 'Still here', preferences: { theme: 'dark' } });
    for (const record of [customer, customer.preferences]) {
      expect([Object.getPrototypeOf(record), 'is_admin' in record, 'isAdmin' in record]).toEqual([Object.prototype, false, false]);
    }
    expect([({} as Record<string, unknown>).is_admin, Object.prototype.hasOwnProperty.call(Object.prototype, 'is_admin')]).toEqual([undefined, false]);
    const memory = process.memoryUsage().rss / 1024 ** 2;
    console.log(`hostile input: rss of the test process (API included) ${Math.round(memory)} MiB after the corpus`);
  });

  it('answered no hostile request with a 5xx', () => {
    const kinds = Object.entries(sent).map(([kind, t]) => `${kind}: ${t.cases.size} on ${t.routes.size} routes, ${t.requests.toLocaleString('en')} requests`);
    const total = Object.values(sent).reduce((n, t) => n + t.requests, 0);
    console.log(`hostile requests: ${kinds.join('; ')}; ${total.toLocaleString('en')} in all, ${serverErrors.length} answered 5xx`);
    expect(Object.keys(sent).sort()).toEqual(['body cases', 'header cases', 'query cases', 'query limit', 'record cases']);
    expect(serverErrors).toEqual([]);
  });
});
