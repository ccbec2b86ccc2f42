import { givenDatatarget, meta, secrets } from '#mds/testing/given-datatargets';
import { refusal } from '#mds/testing/given';
import { OUTLET_CHANGED, OUTLET_CONTROLLED, type OutletChanged } from '../datatarget.events';
import { ChangeOutletCommand } from './change-outlet.command';
import { ChangeOutletHandler } from './change-outlet.handler';

describe('changing an outlet', () => {
  it('given an outlet with credentials, when only its content changes, then OutletChanged keeps the credentials it had', async () => {
    const { store, outlet } = await givenDatatarget({ outlet: true });
    await new ChangeOutletHandler(store, secrets).execute(new ChangeOutletCommand(outlet!, { request: { content: { items: '{(data)}' } }, max_batch_size: 10 }, meta));
    const [event] = store.appended();
    expect(event.type).toBe(OUTLET_CHANGED);
    const { changes } = event.data as OutletChanged;
    expect(changes).toMatchObject({ max_batch_size: 10, request: { content: { items: '{(data)}' } } });
    expect(JSON.parse(secrets.open(changes.credentials_sealed!))).toEqual(JSON.parse(secrets.open(outlet!.credentials_sealed!)));
  });

  it('given an outlet, when only enabled: false is sent, then it is paused and nothing else changes', async () => {
    const { store, outlet } = await givenDatatarget({ outlet: true });
    await new ChangeOutletHandler(store, secrets).execute(new ChangeOutletCommand(outlet!, { enabled: false }, meta));
    expect(store.appended().map((e) => e.type)).toEqual([OUTLET_CONTROLLED]);
  });

  it('when nothing is sent, then it is refused', async () => {
    const { store, outlet } = await givenDatatarget({ outlet: true });
    expect((await refusal(() => new ChangeOutletHandler(store, secrets).execute(new ChangeOutletCommand(outlet!, {}, meta)))).status).toBe(400);
    expect(store.appended()).toEqual([]);
  });
});
