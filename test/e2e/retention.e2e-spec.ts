import { datasyncProjection, datatargetsProjection, expireDeliveredMessages, rebuildProjection } from '#mds/projections';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { dumpService } from '../support/dump';
import { eventually } from '../support/eventually';
import { startDelivery } from '../support/receiver';

type Json = Record<string, any>;
const DAY = 86_400_000;

/**
 * retention_days on a datatarget: the payloads of delivered messages older than that are dropped,
 * from the kept lists beside the log and from the read model; never one an outlet has not delivered.
 */
describe('datatarget retention_days', () => {
  let api: TestApi;
  let token: string;
  let delivery: Awaited<ReturnType<typeof startDelivery>>;
  let receiver: typeof delivery.receiver;

  const send = (method: string, path: string, body?: unknown) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const later = (days: number) => new Date(Date.now() + days * DAY);

  beforeAll(async () => {
    api = await startTestApi({ projections: [datatargetsProjection, datasyncProjection], env: { OUTLET_ALLOW_PRIVATE: 'true', OUTLET_POLL_MS: '20', OUTLET_RETENTION_SWEEP_MS: '100' } });
    token = (await seedUserToken(api.rt, 'keeper', ['staff'])).token;
    delivery = await startDelivery(api.rt);
    receiver = delivery.receiver;
  });
  afterAll(async () => {
    await delivery?.close();
    await api?.close();
  });

  it('takes retention_days on create and change, shows it, and refuses what is not a number of days', async () => {
    const created = await send('POST', '/api/datatargets/', { datatarget_type: 'messages', name: 'kept a week', retention_days: 7 });
    expect(created.body.datatarget).toMatchObject({ retention_days: 7 });
    expect((await send('POST', '/api/datatargets/', { datatarget_type: 'messages', name: 'forever' })).body.datatarget.retention_days).toBeNull();
    const id = created.body.datatarget.id;
    expect((await send('PATCH', `/api/datatargets/${id}/`, { retention_days: 30 })).body.datatarget.retention_days).toBe(30);
    expect((await send('PATCH', `/api/datatargets/${id}/`, { retention_days: null })).body.datatarget.retention_days).toBeNull();
    for (const bad of [-1, 1.5, '7', 36501]) {
      const res = await send('POST', '/api/datatargets/', { datatarget_type: 'messages', name: 'x', retention_days: bad });
      expect([bad, res.status, res.body.error?.code, res.body.error?.message]).toEqual([bad, 400, 'invalid_request', expect.stringContaining('retention_days must be a whole number of days')]);
    }
  });

  it('drops delivered payloads past the retention, keeps an undelivered one and those of a datatarget without retention', async () => {
    const target = (await send('POST', '/api/datatargets/', { datatarget_type: 'messages', name: 'orders feed', retention_days: 1 })).body.datatarget;
    const keeps = (await send('POST', '/api/datatargets/', { datatarget_type: 'messages', name: 'archive' })).body.datatarget;
    const outlet = (await send('POST', `/api/datatargets/${target.id}/outlets/`, { outlet_type: 'webhook', request: { url: receiver.url, method: 'POST', format: 'json', content: '{(data)}', is_batched: true } })).body.outlet;
    await send('POST', `/api/datatargets/${target.id}/post/`, { messages: [{ email: 'delivered.one@example.com' }, { email: 'delivered.two@example.com' }] });
    await send('POST', `/api/datatargets/${keeps.id}/post/`, { messages: [{ email: 'archived.forever@example.com' }] });
    await eventually(async () => expect((await send('GET', `/api/datatargets/${target.id}/outlets/${outlet.id}/`)).body.outlet.last_delivered_message_number).toBe(2));
    await send('POST', `/api/datatargets/${target.id}/outlets/${outlet.id}/pause/`);
    await send('POST', `/api/datatargets/${target.id}/post/`, { messages: [{ email: 'not.yet.delivered@example.com' }] });
    await eventually(async () => expect((await send('GET', `/api/datatargets/${target.id}/`)).body.datatarget.last_message_number).toBe(3));
    const dump0 = await dumpService(api.rt.db.url);

    // The payloads are there to be found: the checks below would see them stay.
    expect(['delivered.one', 'delivered.two', 'archived.forever'].filter((v) => dump0.text.includes(v))).toHaveLength(3);
    // Not old enough yet: nothing goes.
    expect(await expireDeliveredMessages(api.rt.pool, later(0.5))).toEqual({ posts: 0, messages: 0 });
    expect(await expireDeliveredMessages(api.rt.pool, later(2))).toEqual({ posts: 1, messages: 2 });
    expect(await expireDeliveredMessages(api.rt.pool, later(2))).toEqual({ posts: 0, messages: 0 }); // done once

    const retrieved = (await send('GET', `/api/datatargets/${target.id}/retrieve/?after=0`)).body.messages as Json[];
    expect(JSON.stringify(retrieved)).not.toContain('delivered.one');
    expect(JSON.stringify(retrieved)).toContain('not.yet.delivered@example.com');
    const entry = (await send('GET', `/api/datatargets/${target.id}/outlets/${outlet.id}/log/1/`)).body.entry;
    expect(entry.http_request).toContain('"[expired]"');
    expect(entry.http_request).not.toContain('delivered.one');
    const dump = await dumpService(api.rt.db.url);
    expect(['delivered.one', 'delivered.two'].filter((v) => dump.text.includes(v))).toEqual([]);
    expect(['not.yet.delivered@example.com', 'archived.forever@example.com'].filter((v) => dump.text.includes(v))).toHaveLength(2);
    // A rebuild reads the dropped payloads as dropped.
    await rebuildProjection(api.rt.runnerDeps(), datatargetsProjection);
    expect(JSON.stringify((await send('GET', `/api/datatargets/${target.id}/retrieve/?after=0`)).body.messages)).not.toContain('delivered.one');
    // Delivered later, the last one goes too.
    await send('POST', `/api/datatargets/${target.id}/outlets/${outlet.id}/resume/`);
    await eventually(async () => expect((await send('GET', `/api/datatargets/${target.id}/outlets/${outlet.id}/`)).body.outlet.last_delivered_message_number).toBe(3));
    expect(await expireDeliveredMessages(api.rt.pool, later(2))).toEqual({ posts: 1, messages: 1 });
    expect((await dumpService(api.rt.db.url)).text).not.toContain('not.yet.delivered');
  });

  it("drops them on the outlet worker's own sweep (OUTLET_RETENTION_SWEEP_MS), once delivered", async () => {
    const target = (await send('POST', '/api/datatargets/', { datatarget_type: 'messages', name: 'kept until delivered', retention_days: 0 })).body.datatarget;
    await send('POST', `/api/datatargets/${target.id}/post/`, { messages: [{ email: 'swept.soon@example.com' }] });
    expect(JSON.stringify((await send('GET', `/api/datatargets/${target.id}/retrieve/?after=0`)).body.messages)).toContain('swept.soon@example.com');
    await send('POST', `/api/datatargets/${target.id}/outlets/`, { outlet_type: 'webhook', request: { url: receiver.url, method: 'POST', format: 'json', content: '{(data)}', is_batched: true } });
    await eventually(async () => expect((await send('GET', `/api/datatargets/${target.id}/retrieve/?after=0`)).body.messages).toEqual(['[expired]']), { timeoutMs: 10_000 });
    expect(receiver.received.map((r) => r.body).join('\n')).toContain('swept.soon@example.com');
    expect((await dumpService(api.rt.db.url)).text).not.toContain('swept.soon');
  });
});
