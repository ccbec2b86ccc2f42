import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { givenDatatarget, meta, secrets } from '#mds/testing/given-datatargets';
import { DELIVERY_ATTEMPTED, OUTLET_CONTROLLED, outletStream, type DeliveryAttempted, type OutletControlled, type OutletDefinition } from '../datatarget.events';
import { USER_AGENT } from '../delivery/service-headers';
import { sampleMessage, SendTestHandler } from './send-test.handler';
import { SendTestCommand } from './send-test.command';

const servers: Server[] = [];
afterAll(async () => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

/** A receiver on loopback answering `status`, keeping what it got. */
async function receiver(status: number) {
  const got: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(status, { 'content-type': 'text/plain' }).end('seen');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, got };
}

const SECRET = `whsec_${Buffer.from('the signing key of the test send').toString('base64')}`;
const settings = { allowPrivate: true, connectTimeoutMs: 2000, totalTimeoutMs: 5000 };

describe('a test send', () => {
  it('makes a sample marked as a test, naming the outlet and, for datasync, the datatype', () => {
    const at = new Date('2026-03-01T10:00:00.000Z');
    expect(sampleMessage({ outlet_id: 'o1', datatarget_id: 'd1' }, 'customers', at)).toEqual({
      test: true, message: expect.stringContaining('test message'), datatarget_id: 'd1', outlet_id: 'o1', datatype: 'customers', sent_at: '2026-03-01T10:00:00.000Z',
    });
    expect(sampleMessage({ outlet_id: 'o1', datatarget_id: 'd1' }, null, at)).not.toHaveProperty('datatype');
  });

  it('given a signed, batched outlet with credentials that was paused, when a test is sent, then the receiver gets the sample through the template, signed, with the credentials and the service headers; the log gets a test entry and the state keeps its place', async () => {
    const { store, outlet } = await givenDatatarget({ outlet: true });
    const hook = await receiver(202);
    const def: OutletDefinition = { ...outlet!, is_batched: true, request: { ...outlet!.request, url: `${hook.url}?key=[sealed]`, content: { items: '{(data)}' } }, secret_sealed: secrets.seal(SECRET) };
    await store.given(outletStream(def.outlet_id), { type: OUTLET_CONTROLLED, data: { outlet_id: def.outlet_id, action: 'pause', by: 'users/admin', at: '2026-03-01T09:00:00.000Z', state: { last_delivered_message_number: 7, delivered_batch_count: 2, entry_count: 5, batch_number: 3, failures: 1, failing_since: '2026-03-01T08:00:00.000Z', retry_at: null, paused: 'operator', last_attempt_at: null } } satisfies OutletControlled });

    const { entry } = await new SendTestHandler(store, secrets, settings).execute(new SendTestCommand(def, 'customers', meta));

    expect(hook.got).toHaveLength(1);
    const [{ headers, body }] = hook.got;
    const json = JSON.parse(body) as { items: Array<Record<string, unknown>> };
    expect(json.items).toEqual([expect.objectContaining({ test: true, outlet_id: def.outlet_id, datatype: 'customers' })]);
    expect(headers).toMatchObject({ authorization: 'Bearer s3cret', 'user-agent': USER_AGENT, 'webhook-datatype': 'customers', 'content-type': 'application/json' });
    expect(headers).not.toHaveProperty('webhook-first-message');
    expect(String(headers['webhook-id'])).toMatch(new RegExp(`^msg_${def.outlet_id}_test_`));
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    expect(headers['webhook-signature']).toBe(`v1,${createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest('base64')}`);

    expect(entry).toMatchObject({ entry_number: 6, status: 'OK', http_status: 202, test: true, batch_number: 0 });
    const [event] = store.appended();
    expect(event).toMatchObject({ stream: outletStream(def.outlet_id), type: DELIVERY_ATTEMPTED });
    const data = event.data as DeliveryAttempted;
    expect(data.state).toEqual({ last_delivered_message_number: 7, delivered_batch_count: 2, entry_count: 6, batch_number: 3, failures: 1, failing_since: '2026-03-01T08:00:00.000Z', retry_at: null, paused: 'operator', last_attempt_at: null });
    // The credentials are masked in what the log keeps; the URL's query credential too.
    expect(data.http_request).toContain('"test":true');
    expect(data.http_request).not.toContain('s3cret');
    expect(data.http_request).not.toContain('query-key-7Qz');
    expect(store.appends.map((a) => a.options)).toEqual([{ expectedRevision: 0 }]);
  });

  it('given OUTLET_ALLOW_PRIVATE off, when the outlet points at loopback, then nothing is sent and the test entry says why', async () => {
    const { store, outlet } = await givenDatatarget({ outlet: true });
    const hook = await receiver(200);
    const def: OutletDefinition = { ...outlet!, request: { ...outlet!.request, url: hook.url } };
    const { entry } = await new SendTestHandler(store, secrets, { ...settings, allowPrivate: false }).execute(new SendTestCommand(def, null, meta));
    expect(hook.got).toEqual([]);
    expect(entry).toMatchObject({ entry_number: 1, status: 'FAIL', test: true, http_request_available: false });
    expect(entry.fail_reason).toMatch(/refused: 127\.0\.0\.1 is a loopback address/);
  });
});
