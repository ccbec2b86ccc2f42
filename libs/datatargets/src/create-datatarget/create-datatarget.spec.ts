import { MemoryEventStore, refusal } from '#mds/testing/given';
import { DATATARGET_CREATED, datatargetStream } from '../datatarget.events';
import { CreateDatatargetCommand } from './create-datatarget.command';
import { CreateDatatargetHandler } from './create-datatarget.handler';

const meta = { actor: 'users/admin', tokenId: 't1', requestId: 'req-1' };

describe('creating a datatarget', () => {
  it('when a messages datatarget is created, then DatatargetCreated opens its stream with no message yet', async () => {
    const store = new MemoryEventStore();
    const { datatarget_id: id, position } = await new CreateDatatargetHandler(store).execute(new CreateDatatargetCommand({ datatarget_type: 'messages', name: ' orders ', description: ' all ', retention_days: 30 }, meta));
    expect(position).toBe(1);
    expect(store.appended()).toEqual([
      {
        stream: datatargetStream(id),
        type: DATATARGET_CREATED,
        data: { datatarget_id: id, datatarget_type: 'messages', datatype: null, name: 'orders', description: 'all', created_at: expect.any(String), last_message_number: 0, retention_days: 30 },
        metadata: expect.objectContaining({ actor: 'users/admin', token_id: 't1', request_id: 'req-1' }),
      },
    ]);
    expect(store.appends[0].options).toEqual({ expectedRevision: 'no_stream' });
  });

  it('when a datasync datatarget follows customers, then its datatype is customers; without a datatype it is refused', async () => {
    const store = new MemoryEventStore();
    await new CreateDatatargetHandler(store).execute(new CreateDatatargetCommand({ datatarget_type: 'datasync', datatype: 'customers', name: 'crm' }, meta));
    expect(store.appended()[0].data).toMatchObject({ datatarget_type: 'datasync', datatype: 'customers' });
    expect((await refusal(() => new CreateDatatargetHandler(store).execute(new CreateDatatargetCommand({ datatarget_type: 'datasync', name: 'crm' }, meta)))).status).toBe(400);
    expect(store.events).toHaveLength(1);
  });
});
