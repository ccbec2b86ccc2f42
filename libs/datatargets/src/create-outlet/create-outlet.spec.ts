import { givenDatatarget, meta, secrets } from '#mds/testing/given-datatargets';
import { CreateOutletCommand } from './create-outlet.command';
import { CreateOutletHandler } from './create-outlet.handler';
import { datatargetStream, OUTLET_CONTROLLED, OUTLET_CREATED, outletStream, type OutletCreated } from '../datatarget.events';

describe('creating a webhook outlet', () => {
  it('given a datatarget, when an outlet with a secret and credentials is created, then OutletCreated holds them sealed, never in clear', async () => {
    const { store, id } = await givenDatatarget();
    const { outlet_id: outletId } = await new CreateOutletHandler(store, secrets).execute(
      new CreateOutletCommand(id, { request: { url: 'https://hooks.example.com/in?key=k1', headers: { authorization: 'Bearer s3cret' }, content: '{(data)}', is_batched: true }, max_batch_size: 50, min_request_interval: 2, secret: 'whsec_abc' }, meta),
    );
    const [event] = store.appended();
    expect(event).toMatchObject({ stream: datatargetStream(id), type: OUTLET_CREATED, metadata: { schema: 2 } });
    const { outlet, last_message_number } = event.data as OutletCreated;
    expect(last_message_number).toBe(0);
    expect(outlet).toMatchObject({ outlet_id: outletId, datatarget_id: id, outlet_type: 'webhook', is_batched: true, max_batch_size: 50, min_request_interval: '2' });
    const text = JSON.stringify(event);
    for (const secret of ['s3cret', 'k1', 'whsec_abc']) expect(text).not.toContain(secret);
    expect(secrets.open(outlet.secret_sealed!)).toBe('whsec_abc');
    expect(secrets.open(outlet.credentials_sealed!)).toContain('s3cret');
  });

  it('when it is created disabled, then it is paused at once in its own stream and the answer waits for that', async () => {
    const { store, id } = await givenDatatarget();
    const { outlet_id: outletId, position } = await new CreateOutletHandler(store, secrets).execute(new CreateOutletCommand(id, { request: { url: 'https://hooks.example.com/in' }, enabled: false }, meta));
    expect(store.appended().map((e) => [e.stream, e.type])).toEqual([
      [datatargetStream(id), OUTLET_CREATED],
      [outletStream(outletId), OUTLET_CONTROLLED],
    ]);
    expect(store.appended()[1].data).toMatchObject({ action: 'pause', state: { paused: 'operator' } });
    expect(position).toBe(store.events.length);
  });
});
