import { givenDatatarget, meta, outletSettings, secrets } from '#mds/testing/given-datatargets';
import { refusal } from '#mds/testing/given';
import { OUTLET_CHANGED, OUTLET_CONTROLLED, type OutletChanged } from '../datatarget.events';
import { ChangeOutletCommand } from './change-outlet.command';
import { ChangeOutletHandler } from './change-outlet.handler';

describe('changing an outlet', () => {
  it('given an outlet with credentials, when only its content changes, then OutletChanged keeps the credentials it had', async () => {
    const { store, outlet } = await givenDatatarget({ outlet: true });
    await new ChangeOutletHandler(store, secrets, outletSettings).execute(new ChangeOutletCommand(outlet!, { request: { content: { items: '{(data)}' } }, max_batch_size: 10 }, meta));
    const [event] = store.appended();
    expect(event.type).toBe(OUTLET_CHANGED);
    const { changes } = event.data as OutletChanged;
    expect(changes).toMatchObject({ max_batch_size: 10, request: { content: { items: '{(data)}' } } });
    expect(JSON.parse(secrets.open(changes.credentials_sealed!))).toEqual(JSON.parse(secrets.open(outlet!.credentials_sealed!)));
  });

  it('given an outlet, when only enabled: false is sent, then it is paused and nothing else changes', async () => {
    const { store, outlet } = await givenDatatarget({ outlet: true });
    await new ChangeOutletHandler(store, secrets, outletSettings).execute(new ChangeOutletCommand(outlet!, { enabled: false }, meta));
    expect(store.appended().map((e) => e.type)).toEqual([OUTLET_CONTROLLED]);
  });

  it('when nothing is sent, then it is refused', async () => {
    const { store, outlet } = await givenDatatarget({ outlet: true });
    expect((await refusal(() => new ChangeOutletHandler(store, secrets, outletSettings).execute(new ChangeOutletCommand(outlet!, {}, meta)))).status).toBe(400);
    expect(store.appended()).toEqual([]);
  });

  it('given OUTLET_ALLOW_PRIVATE off, when the URL changes to a loopback address, then it is refused; a change leaving the URL alone is not checked', async () => {
    const { store, outlet } = await givenDatatarget({ outlet: true });
    const refused = await refusal(() => new ChangeOutletHandler(store, secrets, outletSettings).execute(new ChangeOutletCommand(outlet!, { request: { url: 'http://[::1]:8080/hook' } }, meta)));
    expect([refused.status, refused.code]).toEqual([400, 'invalid_request']);
    expect(refused.message).toMatch(/::1 is a loopback address.*OUTLET_ALLOW_PRIVATE=true/);
    expect(store.appended()).toEqual([]);
    const onLoopback = { ...outlet!, request: { ...outlet!.request, url: 'http://127.0.0.1:9/hook' } };
    await new ChangeOutletHandler(store, secrets, outletSettings).execute(new ChangeOutletCommand(onLoopback, { max_batch_size: 5 }, meta));
    expect(store.appended().map((e) => e.type)).toEqual([OUTLET_CHANGED]);
  });
});
