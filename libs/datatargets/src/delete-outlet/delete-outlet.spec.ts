import { givenDatatarget, meta } from '#mds/testing/given-datatargets';
import { datatargetStream, OUTLET_DELETED } from '../datatarget.events';
import { DeleteOutletCommand } from './delete-outlet.command';
import { DeleteOutletHandler } from './delete-outlet.handler';

describe('deleting an outlet', () => {
  it('given an outlet, when it is deleted, then OutletDeleted goes into its datatarget\'s stream (its log stays in its own)', async () => {
    const { store, id, outlet } = await givenDatatarget({ outlet: true });
    const position = await new DeleteOutletHandler(store).execute(new DeleteOutletCommand(outlet!, meta));
    expect(store.appended()).toEqual([{ stream: datatargetStream(id), type: OUTLET_DELETED, data: { outlet_id: outlet!.outlet_id, last_message_number: 0 }, metadata: expect.objectContaining({ actor: 'users/admin' }) }]);
    expect(position).toBe(store.events.length);
  });
});
