import { givenDatatarget, meta } from '#mds/testing/given-datatargets';
import { MemoryEventStore, refusal } from '#mds/testing/given';
import { CreateDatatargetCommand } from '../create-datatarget/create-datatarget.command';
import { CreateDatatargetHandler } from '../create-datatarget/create-datatarget.handler';
import { datatargetStream, MESSAGES_POSTED, type MessagesPosted } from '../datatarget.events';
import { PostMessagesCommand } from './post-messages.command';
import { PostMessagesHandler } from './post-messages.handler';

describe('posting messages to a datatarget', () => {
  it('given a datatarget, when 1,500 messages are posted, then they are numbered 1 to 1500 in chunks, in one append after the revision read', async () => {
    const { store, id } = await givenDatatarget();
    const answer = await new PostMessagesHandler(store).execute(new PostMessagesCommand(id, { messages: Array.from({ length: 1500 }, (_, n) => ({ n })) }, meta));
    expect(answer).toEqual({ first_message_number: 1, messages_count: 1500, position: 3 });
    const posted = store.appended().map((e) => e.data as MessagesPosted);
    expect(posted.map((p) => [p.first_message_number, p.last_message_number])).toEqual([
      [1, 1000],
      [1001, 1500],
    ]);
    expect(store.appends).toEqual([{ stream: datatargetStream(id), count: 2, options: { expectedRevision: 0 } }]);
    expect(store.appended().every((e) => e.type === MESSAGES_POSTED)).toBe(true);
  });

  it('given 1,500 messages, when 2 more are posted, then they are 1501 and 1502', async () => {
    const { store, id } = await givenDatatarget();
    await new PostMessagesHandler(store).execute(new PostMessagesCommand(id, { messages: Array.from({ length: 1500 }, () => ({})) }, meta));
    store.givenSoFar();
    expect((await new PostMessagesHandler(store).execute(new PostMessagesCommand(id, { messages: [{ a: 1 }, { a: 2 }] }, meta))).first_message_number).toBe(1501);
  });

  it('when the datatarget does not exist, is a datasync one, or the body holds no objects, then it is refused and nothing is appended', async () => {
    const { store, id } = await givenDatatarget();
    expect((await refusal(() => new PostMessagesHandler(store).execute(new PostMessagesCommand('nope', { messages: [{}] }, meta)))).status).toBe(404);
    expect((await refusal(() => new PostMessagesHandler(store).execute(new PostMessagesCommand(id, { messages: [1] }, meta)))).status).toBe(400);
    const sync = new MemoryEventStore();
    const { datatarget_id: syncId } = await new CreateDatatargetHandler(sync).execute(new CreateDatatargetCommand({ datatarget_type: 'datasync', datatype: 'customers', name: 'crm' }, meta));
    expect((await refusal(() => new PostMessagesHandler(sync).execute(new PostMessagesCommand(syncId, { messages: [{}] }, meta)))).status).toBe(409);
    expect(store.appended()).toEqual([]);
  });
});
