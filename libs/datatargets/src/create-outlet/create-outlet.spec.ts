import { givenDatatarget, meta, outletSettings, secrets } from '#mds/testing/given-datatargets';
import { refusal } from '#mds/testing/given';
import { CreateOutletCommand } from './create-outlet.command';
import { CreateOutletHandler } from './create-outlet.handler';
import { datatargetStream, INITIAL_OUTLET_STATE, MESSAGES_POSTED, OUTLET_CONTROLLED, OUTLET_CREATED, outletStream, type OutletControlled, type OutletCreated } from '../datatarget.events';

describe('creating a webhook outlet', () => {
  it('given a datatarget, when an outlet with a secret and credentials is created, then OutletCreated holds them sealed, never in clear', async () => {
    const { store, id } = await givenDatatarget();
    const { outlet_id: outletId } = await new CreateOutletHandler(store, secrets, outletSettings).execute(
      new CreateOutletCommand(id, { request: { url: 'https://hooks.example.com/in?key=query-key-7Qz', headers: { authorization: 'Bearer s3cret' }, content: '{(data)}', is_batched: true }, max_batch_size: 50, min_request_interval: 2, secret: 'whsec_abc' }, meta),
    );
    const [event] = store.appended();
    expect(event).toMatchObject({ stream: datatargetStream(id), type: OUTLET_CREATED, metadata: { schema: 2 } });
    const { outlet, last_message_number } = event.data as OutletCreated;
    expect(last_message_number).toBe(0);
    expect(outlet).toMatchObject({ outlet_id: outletId, datatarget_id: id, outlet_type: 'webhook', is_batched: true, max_batch_size: 50, min_request_interval: '2' });
    const text = JSON.stringify(event);
    for (const secret of ['s3cret', 'query-key-7Qz', 'whsec_abc']) expect(text).not.toContain(secret);
    expect(secrets.open(outlet.secret_sealed!)).toBe('whsec_abc');
    expect(secrets.open(outlet.credentials_sealed!)).toContain('s3cret');
  });

  it('when it is created disabled, then it is paused at once in its own stream and the answer waits for that', async () => {
    const { store, id } = await givenDatatarget();
    const { outlet_id: outletId, position } = await new CreateOutletHandler(store, secrets, outletSettings).execute(new CreateOutletCommand(id, { request: { url: 'https://hooks.example.com/in' }, enabled: false }, meta));
    expect(store.appended().map((e) => [e.stream, e.type])).toEqual([
      [datatargetStream(id), OUTLET_CREATED],
      [outletStream(outletId), OUTLET_CONTROLLED],
    ]);
    expect(store.appended()[1].data).toMatchObject({ action: 'pause', state: { paused: 'operator' } });
    expect(position).toBe(store.events.length);
  });

  const create = (store: Awaited<ReturnType<typeof givenDatatarget>>['store'], id: string, input: ConstructorParameters<typeof CreateOutletCommand>[1], settings: ConstructorParameters<typeof CreateOutletHandler>[2] = outletSettings, shown = 0) =>
    new CreateOutletHandler(store, secrets, settings).execute(new CreateOutletCommand(id, input, meta, shown));

  it('given OUTLET_ALLOW_PRIVATE off, when the URL is a private address, localhost or a name resolving only to private addresses, then it is refused naming the setting, and nothing is appended', async () => {
    const { store, id } = await givenDatatarget();
    const dns = { allowPrivate: false, lookup: async (name: string) => (name === 'intranet.example' ? [{ address: '192.168.0.10', family: 4 as const }] : [{ address: '93.184.215.14', family: 4 as const }]) };
    for (const url of ['http://127.0.0.1:9000/hook', 'http://localhost/hook', 'http://10.0.0.1/hook', 'https://intranet.example/hook']) {
      const refused = await refusal(() => create(store, id, { request: { url } }, dns));
      expect([url, refused.status, refused.code, /OUTLET_ALLOW_PRIVATE/.test(refused.message)]).toEqual([url, 400, 'invalid_request', true]);
    }
    expect(store.appended()).toEqual([]);
    await create(store, id, { request: { url: 'https://shop.example/hook' } }, dns);
    await create(store, id, { request: { url: 'http://127.0.0.1:9000/hook' } }, { allowPrivate: true, lookup: dns.lookup });
    expect(store.appended().map((e) => e.type)).toEqual([OUTLET_CREATED, OUTLET_CREATED]);
  });

  it('given a datatarget holding 3 messages, when an outlet starting "now" is created, then its stream starts after message 3, before the outlet exists, and OutletCreated says so too', async () => {
    const { store, id } = await givenDatatarget();
    await store.given(datatargetStream(id), { type: MESSAGES_POSTED, data: { first_message_number: 1, messages: [{}, {}, {}], last_message_number: 3 } });
    const { outlet_id: outletId } = await create(store, id, { request: { url: 'https://hooks.example.com/in' }, start: 'now' });
    expect(store.appended().map((e) => [e.stream, e.type])).toEqual([
      [outletStream(outletId), OUTLET_CONTROLLED],
      [datatargetStream(id), OUTLET_CREATED],
    ]);
    const start = store.appended()[0].data as OutletControlled;
    expect(start).toMatchObject({ outlet_id: outletId, action: 'start', to_message_number: 4, by: 'users/admin', state: { ...INITIAL_OUTLET_STATE, last_delivered_message_number: 3 } });
    expect((store.appended()[1].data as OutletCreated).state).toEqual(start.state);
  });

  it('when it starts "now" and is created disabled, then the pause keeps where it starts', async () => {
    const { store, id } = await givenDatatarget();
    await store.given(datatargetStream(id), { type: MESSAGES_POSTED, data: { first_message_number: 1, messages: [{}, {}], last_message_number: 2 } });
    await create(store, id, { request: { url: 'https://hooks.example.com/in' }, start: 'now', enabled: false });
    const paused = store.appended()[2].data as OutletControlled;
    expect(paused.state).toMatchObject({ paused: 'operator', last_delivered_message_number: 2 });
  });

  it('when it starts "now" on a datasync datatarget, then it starts after the last message the read side shows (numbered there, not in the stream)', async () => {
    const { store, id } = await givenDatatarget();
    await create(store, id, { request: { url: 'https://hooks.example.com/in' }, start: 'now' }, outletSettings, 1200);
    expect((store.appended()[0].data as OutletControlled).state.last_delivered_message_number).toBe(1200);
  });

  it('when it starts "now" on an empty datatarget, or from the beginning (the default), then it starts at message 1 with no start event', async () => {
    const { store, id } = await givenDatatarget();
    await create(store, id, { request: { url: 'https://hooks.example.com/in' }, start: 'now' });
    await create(store, id, { request: { url: 'https://hooks.example.com/in' }, start: 'beginning' });
    expect(store.appended().map((e) => e.type)).toEqual([OUTLET_CREATED, OUTLET_CREATED]);
    expect(store.appended().map((e) => (e.data as OutletCreated).state)).toEqual([undefined, undefined]);
  });
});
