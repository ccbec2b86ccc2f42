import { givenDatatarget, meta } from '#mds/testing/given-datatargets';
import { refusal } from '#mds/testing/given';
import { DATATARGET_CHANGED, DATATARGET_DELETED, datatargetStream, MESSAGES_POSTED } from '../datatarget.events';
import { ChangeDatatargetCommand } from './change-datatarget.command';
import { ChangeDatatargetHandler } from './change-datatarget.handler';

describe('changing a datatarget', () => {
  it('given a datatarget with 3 messages, when it is disabled and renamed, then DatatargetChanged carries what was sent and the message count', async () => {
    const { store, id } = await givenDatatarget();
    await store.given(datatargetStream(id), { type: MESSAGES_POSTED, data: { first_message_number: 1, last_message_number: 3, messages: [{}, {}, {}] } });
    const position = await new ChangeDatatargetHandler(store).execute(new ChangeDatatargetCommand(id, { name: ' orders v2 ', enabled: false }, meta));
    expect(store.appended()).toEqual([{ stream: datatargetStream(id), type: DATATARGET_CHANGED, data: { changes: { name: 'orders v2', enabled: false }, last_message_number: 3 }, metadata: expect.objectContaining({ actor: 'users/admin' }) }]);
    expect(position).toBe(store.events.length);
  });

  it('when nothing is sent, then it is refused', async () => {
    const { store, id } = await givenDatatarget();
    expect((await refusal(() => new ChangeDatatargetHandler(store).execute(new ChangeDatatargetCommand(id, {}, meta)))).status).toBe(400);
    expect(store.appended()).toEqual([]);
  });

  it('given a deleted datatarget, when it is changed, then it is not found', async () => {
    const { store, id } = await givenDatatarget();
    await store.given(datatargetStream(id), { type: DATATARGET_DELETED, data: { last_message_number: 0 } });
    expect((await refusal(() => new ChangeDatatargetHandler(store).execute(new ChangeDatatargetCommand(id, { name: 'x' }, meta)))).status).toBe(404);
  });
});
