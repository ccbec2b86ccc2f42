import { givenDatatarget, meta } from '#mds/testing/given-datatargets';
import { refusal } from '#mds/testing/given';
import { DATATARGET_DELETED, datatargetStream } from '../datatarget.events';
import { DeleteDatatargetCommand } from './delete-datatarget.command';
import { DeleteDatatargetHandler } from './delete-datatarget.handler';

describe('deleting a datatarget', () => {
  it('given a datatarget, when it is deleted, then DatatargetDeleted ends its stream; deleting again is not found', async () => {
    const { store, id } = await givenDatatarget();
    await new DeleteDatatargetHandler(store).execute(new DeleteDatatargetCommand(id, meta));
    expect(store.appended()).toEqual([{ stream: datatargetStream(id), type: DATATARGET_DELETED, data: { last_message_number: 0 }, metadata: expect.objectContaining({ actor: 'users/admin' }) }]);
    expect((await refusal(() => new DeleteDatatargetHandler(store).execute(new DeleteDatatargetCommand(id, meta)))).status).toBe(404);
    expect(store.appended()).toHaveLength(1);
  });

  it('given no such datatarget, then it is not found', async () => {
    const { store } = await givenDatatarget();
    expect((await refusal(() => new DeleteDatatargetHandler(store).execute(new DeleteDatatargetCommand('nope', meta)))).status).toBe(404);
  });
});
