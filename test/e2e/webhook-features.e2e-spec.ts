import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DeliveryWorker } from '#mds/outlet-worker';
import { customersProjection, datasyncProjection, datatargetsProjection, eventsProjection, productsProjection, rebuildProjection, salesProjection } from '#mds/projections';
import { isSensitiveHeader, MASK } from '#mds/datatargets';
import { eventually } from '../support/eventually';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { startRawReceiver, startReceiver } from '../support/receiver';

type Json = Record<string, any>;

const VERSION = (JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { version: string }).version;
const PROJECTIONS = [customersProjection, productsProjection, eventsProjection, salesProjection, datatargetsProjection, datasyncProjection];

/** Requests of one token to an API, JSON in and out. */
const caller = (api: TestApi, token: string) => (method: string, url: string, body?: unknown) =>
  api.call(url, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

// Issue 18: what users of Svix or Segment expect of webhooks — private destinations refused when the
// outlet is defined, outlets that start "now", a test send, and headers saying what a request carries.
describe('webhook outlets as users of webhook services expect', () => {
  describe('with OUTLET_ALLOW_PRIVATE off', () => {
    let api: TestApi;
    let send: ReturnType<typeof caller>;

    beforeAll(async () => {
      api = await startTestApi({ projections: [datatargetsProjection, datasyncProjection], env: { OUTLET_ALLOW_PRIVATE: 'false' } });
      send = caller(api, (await seedUserToken(api.rt, 'strict', ['staff'])).token);
    });
    afterAll(async () => {
      await api?.close();
    });

    it('refuses an outlet to a loopback or private address when it is created or its URL changes, naming the setting; a name that does not resolve now is accepted', async () => {
      const target = (await send('POST', '/api/datatargets/', { datatarget_type: 'messages', name: 'strict' })).body.datatarget as Json;
      const outlets = `/api/datatargets/${target.id}/outlets/`;
      const urls = [
        'http://127.0.0.1:8080/hook', 'http://2130706433/hook', 'http://localhost:8080/hook', 'http://api.localhost/hook', 'http://[::1]/hook', 'http://[::ffff:127.0.0.1]/hook',
        'http://10.0.0.1/hook', 'http://192.168.1.20/hook', 'http://169.254.169.254/latest/meta-data/', 'http://100.64.0.1/hook', 'http://[fd00::1]/hook',
      ];
      for (const url of urls) {
        const res = await send('POST', outlets, { outlet_type: 'webhook', request: { url, content: '{(data)}' } });
        expect([url, res.status, res.body.error?.code]).toEqual([url, 400, 'invalid_request']);
        expect(res.body.error.message).toMatch(/OUTLET_ALLOW_PRIVATE/);
      }
      expect((await send('GET', outlets)).body.outlets).toEqual([]);
      // It may resolve later (and the worker checks every connection): accepted.
      const later = await send('POST', outlets, { outlet_type: 'webhook', request: { url: 'https://hooks.not-yet-resolving.invalid/in', content: '{(data)}' } });
      expect(later.status).toBe(200);
      const moved = await send('PATCH', `${outlets}${later.body.outlet.id}/`, { request: { url: 'http://127.0.0.1:9/hook' } });
      expect([moved.status, moved.body.error?.code]).toEqual([400, 'invalid_request']);
      expect(moved.body.error.message).toMatch(/127\.0\.0\.1 is a loopback address.*OUTLET_ALLOW_PRIVATE/);
      expect((await send('GET', `${outlets}${later.body.outlet.id}/`)).body.outlet.request.url).toBe('https://hooks.not-yet-resolving.invalid/in');
    });
  });

  describe('with OUTLET_ALLOW_PRIVATE on (receivers on loopback) and a worker delivering', () => {
    let api: TestApi;
    let send: ReturnType<typeof caller>;
    let worker: DeliveryWorker;

    beforeAll(async () => {
      api = await startTestApi({ projections: PROJECTIONS, env: { OUTLET_ALLOW_PRIVATE: 'true', OUTLET_POLL_MS: '20', OUTLET_BACKOFF_BASE_MS: '20', OUTLET_MAX_BACKOFF_MS: '100' } });
      send = caller(api, (await seedUserToken(api.rt, 'hooks', ['staff'])).token);
      worker = new DeliveryWorker(api.rt, api.rt.config.outlets, api.rt.logger);
      await worker.start();
    });
    afterAll(async () => {
      await worker?.stop();
      await api?.close();
    });

    const newTarget = async (name: string) => (await send('POST', '/api/datatargets/', { datatarget_type: 'messages', name })).body.datatarget as Json;
    const post = async (id: string, messages: unknown[]) => expect((await send('POST', `/api/datatargets/${id}/post/`, { messages })).status).toBe(200);
    const outletOf = async (id: string, outletId: string) => (await send('GET', `/api/datatargets/${id}/outlets/${outletId}/`)).body.outlet as Json;
    const logOf = async (id: string, outletId: string) => (await send('GET', `/api/datatargets/${id}/outlets/${outletId}/log/?order=ascending&limit=1000`)).body.entries as Json[];

    it('starts an outlet created with start: "now" at the first message posted after it, not at message 1; "beginning" is the default; a rebuild shows the same', async () => {
      const receiver = await startReceiver();
      try {
        const target = await newTarget('backlog');
        await post(target.id, Array.from({ length: 2500 }, (_, i) => ({ n: i + 1 })));
        const outlet = { outlet_type: 'webhook', max_batch_size: 1000, request: { url: receiver.url, content: { items: '{(data)}' }, is_batched: true } };
        const now = await send('POST', `/api/datatargets/${target.id}/outlets/`, { ...outlet, start: 'now', request: { ...outlet.request, url: `${receiver.url}?outlet=now` } });
        expect(now.status).toBe(200);
        expect(now.body.outlet).toMatchObject({ last_delivered_message_number: 2500, delivered_batch_count: 0 });
        const beginning = (await send('POST', `/api/datatargets/${target.id}/outlets/`, { ...outlet, request: { ...outlet.request, url: `${receiver.url}?outlet=beginning` } })).body.outlet as Json;
        await post(target.id, [{ n: 2501 }, { n: 2502 }]);
        await eventually(async () => {
          expect((await outletOf(target.id, now.body.outlet.id)).last_delivered_message_number).toBe(2502);
          expect((await outletOf(target.id, beginning.id)).last_delivered_message_number).toBe(2502);
        });
        const got = (which: string) => receiver.received.filter((r) => r.url.endsWith(`outlet=${which}`)).map((r) => r.json.items.map((m: Json) => m.n));
        expect(got('now')).toEqual([[2501, 2502]]);
        expect(got('beginning').flat()).toEqual(Array.from({ length: 2502 }, (_, i) => i + 1));
        expect((await logOf(target.id, now.body.outlet.id)).map((e) => [e.entry_number, e.batch_number, e.first_message_number, e.batch_size])).toEqual([[1, 1, 2501, 2]]);

        // The start is in the log: the read model rebuilt from it starts the outlet at the same place.
        await worker.stop();
        try {
          const before = [await outletOf(target.id, now.body.outlet.id), await logOf(target.id, now.body.outlet.id), await outletOf(target.id, beginning.id)];
          await rebuildProjection(api.rt.runnerDeps(), datatargetsProjection);
          expect([await outletOf(target.id, now.body.outlet.id), await logOf(target.id, now.body.outlet.id), await outletOf(target.id, beginning.id)]).toEqual(before);
        } finally {
          worker = new DeliveryWorker(api.rt, api.rt.config.outlets, api.rt.logger);
          await worker.start();
        }
        expect((await send('POST', `/api/datatargets/${target.id}/outlets/`, { ...outlet, start: 'tomorrow' })).status).toBe(400);
        expect((await send('PATCH', `/api/datatargets/${target.id}/outlets/${beginning.id}/`, { start: 'now' })).status).toBe(400);
      } finally {
        await receiver.close();
      }
    });

    it('sends a test: one sample through the template, signed, with the credentials, answered with the receiver\'s status and time, logged as a test that moves nothing', async () => {
      const receiver = await startReceiver();
      const secret = `whsec_${Buffer.from('the signing key of the test sends').toString('base64')}`;
      try {
        const target = await newTarget('tested');
        const outlet = (await send('POST', `/api/datatargets/${target.id}/outlets/`, {
          outlet_type: 'webhook', secret,
          request: { url: receiver.url, headers: { 'X-Api-Key': 'test-send-key-123', 'X-Shop': 'web' }, content: { source: 'mds', items: '{(data)}' }, is_batched: true },
        })).body.outlet as Json;
        await post(target.id, [{ n: 1 }, { n: 2 }]);
        await eventually(async () => expect((await outletOf(target.id, outlet.id)).last_delivered_message_number).toBe(2));
        // Paused: a test still goes (no worker owns it, the API sends).
        await send('POST', `/api/datatargets/${target.id}/outlets/${outlet.id}/pause/`);
        const sent = receiver.received.length;

        const res = await send('POST', `/api/datatargets/${target.id}/outlets/${outlet.id}/test/`);
        expect(res.status).toBe(200);
        expect(res.body.entry).toMatchObject({ entry_number: 2, status: 'OK', http_status: 200, test: true, batch_number: 0, batch_size: 1, request_time_ms: expect.any(Number), date: expect.stringMatching(/Z$/) });
        expect(receiver.received).toHaveLength(sent + 1);
        const got = receiver.received[sent];
        expect(got.json).toEqual({ source: 'mds', items: [expect.objectContaining({ test: true, datatarget_id: target.id, outlet_id: outlet.id })] });
        expect(got.headers).toMatchObject({ 'x-api-key': 'test-send-key-123', 'x-shop': 'web', 'user-agent': `marketing-data-service/${VERSION}` });
        expect(got.headers['webhook-id']).not.toBe(receiver.received[0].headers['webhook-id']);
        const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
        expect(got.headers['webhook-signature']).toBe(`v1,${createHmac('sha256', key).update(`${got.headers['webhook-id']}.${got.headers['webhook-timestamp']}.${got.body}`).digest('base64')}`);

        // In the log as a test; delivery's place, batches and failures as they were.
        expect((await logOf(target.id, outlet.id)).map((e) => [e.entry_number, e.status, e.test ?? false])).toEqual([[1, 'OK', false], [2, 'OK', true]]);
        const entry = (await send('GET', `/api/datatargets/${target.id}/outlets/${outlet.id}/log/2/`)).body.entry as Json;
        expect(entry.http_request).toContain('"test":true');
        expect(entry.http_request).not.toContain('test-send-key-123');
        expect(entry.http_reply).toContain('200');
        expect(await outletOf(target.id, outlet.id)).toMatchObject({ enabled: false, last_delivered_message_number: 2, delivered_batch_count: 1, failing_since: null, next_attempt_at: null });

        // A receiver that fails the test: the answer says why; the outlet does not count it as failing.
        receiver.setHandler(() => 503);
        const failed = await send('POST', `/api/datatargets/${target.id}/outlets/${outlet.id}/test/`, {});
        expect(failed.body.entry).toMatchObject({ entry_number: 3, status: 'FAIL', http_status: 503, fail_reason: 'HTTP 503', test: true });
        expect(await outletOf(target.id, outlet.id)).toMatchObject({ last_delivered_message_number: 2, failing_since: null, next_attempt_at: null });
        receiver.setHandler(undefined);

        // Resumed, delivery goes on after the tests: the next batch and its entry follow them.
        await send('POST', `/api/datatargets/${target.id}/outlets/${outlet.id}/resume/`);
        await post(target.id, [{ n: 3 }]);
        await eventually(async () => expect((await outletOf(target.id, outlet.id)).last_delivered_message_number).toBe(3));
        expect((await logOf(target.id, outlet.id)).map((e) => [e.entry_number, e.batch_number, e.first_message_number ?? null, e.test ?? false])).toEqual([
          [1, 1, 1, false], [2, 0, null, true], [3, 0, null, true], [4, 2, 3, false],
        ]);

        // Permissions as the other outlet controls; a body with fields, an unknown outlet: refused.
        const auditor = caller(api, (await seedUserToken(api.rt, 'test-auditor', ['auditor'])).token);
        expect((await auditor('POST', `/api/datatargets/${target.id}/outlets/${outlet.id}/test/`)).status).toBe(403);
        expect((await auditor('POST', `/api/datatargets/${target.id}/outlets/${outlet.id}/pause/`)).status).toBe(403);
        expect((await send('POST', `/api/datatargets/${target.id}/outlets/${outlet.id}/test/`, { message: 'x' })).status).toBe(400);
        expect((await send('POST', `/api/datatargets/${target.id}/outlets/no-such-outlet/test/`)).status).toBe(404);
        expect(receiver.received.filter((r) => r.json?.items?.[0]?.test === true)).toHaveLength(2);
      } finally {
        await receiver.close();
      }
    });

    it('sends the first and last message numbers, the datatype and the User-Agent with each batch, in the request the log rebuilds byte for byte', async () => {
      const raw = await startRawReceiver();
      const receiver = await startReceiver();
      try {
        const target = await newTarget('headers');
        const outlet = (await send('POST', `/api/datatargets/${target.id}/outlets/`, { outlet_type: 'webhook', max_batch_size: 2, request: { url: raw.url, headers: { 'X-Api-Key': 'raw-key-1234' }, content: '{(data)}', is_batched: true } })).body.outlet as Json;
        await post(target.id, [{ n: 1 }, { n: 2 }, { n: 3 }]);
        await eventually(async () => expect((await outletOf(target.id, outlet.id)).last_delivered_message_number).toBe(3));
        expect(raw.requests).toHaveLength(2);
        const headerOf = (request: string, name: string) => new RegExp(`\\r\\n${name}: ([^\\r]*)\\r\\n`, 'i').exec(request)?.[1];
        expect(raw.requests.map((r) => [headerOf(r, 'webhook-first-message'), headerOf(r, 'webhook-last-message'), headerOf(r, 'user-agent'), headerOf(r, 'webhook-datatype')])).toEqual([
          ['1', '2', `marketing-data-service/${VERSION}`, undefined],
          ['3', '3', `marketing-data-service/${VERSION}`, undefined],
        ]);
        // The log's request is what the receiver got, the credential masked.
        const masked = raw.requests.map((r) => r.split('\r\n').map((line) => (isSensitiveHeader(line.slice(0, Math.max(0, line.indexOf(':')))) ? `${line.slice(0, line.indexOf(':'))}: ${MASK}` : line)).join('\r\n'));
        const logged: string[] = [];
        for (const n of [1, 2]) logged.push((await send('GET', `/api/datatargets/${target.id}/outlets/${outlet.id}/log/${n}/`)).body.entry.http_request);
        expect(logged).toEqual(masked);

        // A datasync datatarget's batches say its datatype.
        const sync = (await send('POST', '/api/datatargets/', { datatarget_type: 'datasync', datatype: 'customers', name: 'crm' })).body.datatarget as Json;
        const synced = (await send('POST', `/api/datatargets/${sync.id}/outlets/`, { outlet_type: 'webhook', request: { url: receiver.url, content: '{(data)}', is_batched: true } })).body.outlet as Json;
        const run = await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'H-1' }, { external_id: 'H-2' }] });
        expect(run.status).toBe(200);
        await eventually(async () => expect((await outletOf(sync.id, synced.id)).last_delivered_message_number).toBe(2));
        expect(receiver.received.map((r) => [r.headers['webhook-datatype'], r.headers['webhook-first-message'], r.headers['webhook-last-message'], r.headers['user-agent']])).toEqual([
          ['customers', '1', '2', `marketing-data-service/${VERSION}`],
        ]);
        // Their names are the service's: an outlet may not set them.
        expect((await send('POST', `/api/datatargets/${target.id}/outlets/`, { outlet_type: 'webhook', request: { url: receiver.url, headers: { 'Webhook-Last-Message': '9' } } })).status).toBe(400);
      } finally {
        await raw.close();
        await receiver.close();
      }
    });
  });
});
