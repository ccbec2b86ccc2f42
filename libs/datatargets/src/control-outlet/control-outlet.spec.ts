import { givenDatatarget, meta } from '#mds/testing/given-datatargets';
import { refusal } from '#mds/testing/given';
import { OUTLET_CONTROLLED, outletStream, type OutletControlled } from '../datatarget.events';
import { ControlOutletCommand } from './control-outlet.command';
import { ControlOutletHandler } from './control-outlet.handler';

describe("an operator's control of an outlet", () => {
  it('given an outlet, when it is paused then resumed, then each OutletControlled carries the state after it', async () => {
    const { store, outlet } = await givenDatatarget({ outlet: true });
    const handler = new ControlOutletHandler(store);
    await handler.execute(new ControlOutletCommand(outlet!.outlet_id, 'pause', meta));
    await handler.execute(new ControlOutletCommand(outlet!.outlet_id, 'resume', meta));
    const controls = store.appended().map((e) => e.data as OutletControlled);
    expect(store.appended().every((e) => e.stream === outletStream(outlet!.outlet_id) && e.type === OUTLET_CONTROLLED)).toBe(true);
    expect(controls.map((c) => [c.action, c.state.paused, c.by])).toEqual([
      ['pause', 'operator', 'users/admin'],
      ['resume', null, 'users/admin'],
    ]);
    expect(store.appends.map((a) => a.options)).toEqual([{ expectedRevision: 'no_stream' }, { expectedRevision: 0 }]);
  });

  it('given an outlet, when it is rewound to message 5, then the next batch starts at 5 with a new batch number', async () => {
    const { store, outlet } = await givenDatatarget({ outlet: true });
    await new ControlOutletHandler(store).execute(new ControlOutletCommand(outlet!.outlet_id, 'rewind', meta, 5));
    expect((store.appended()[0].data as OutletControlled).state).toMatchObject({ last_delivered_message_number: 4, batch_number: 2 });
    expect((await refusal(() => new ControlOutletHandler(store).execute(new ControlOutletCommand(outlet!.outlet_id, 'rewind', meta, 0)))).status).toBe(400);
  });
});
