import { MemoryEventStore } from '#mds/testing/given';
import { ACCESS_TOKEN_USED, tokenUseStream } from '../access.events';
import { RecordTokenUseCommand } from './record-token-use.command';
import { RecordTokenUseHandler } from './record-token-use.handler';

describe('recording that a token was used', () => {
  it('given a token never used, when it makes requests, then its first use is recorded once by this process', async () => {
    const store = new MemoryEventStore();
    const handler = new RecordTokenUseHandler(store);
    expect(await handler.execute(new RecordTokenUseCommand('t1', 'users/ada', null, 'req-1'))).toBe(true);
    expect(await handler.execute(new RecordTokenUseCommand('t1', 'users/ada', null, 'req-2'))).toBe(false);
    expect(store.appended()).toEqual([{ stream: tokenUseStream('t1'), type: ACCESS_TOKEN_USED, data: { token_id: 't1', at: expect.any(String) }, metadata: expect.objectContaining({ actor: 'users/ada', token_id: 't1', request_id: 'req-1' }) }]);
  });

  it('given the read model saw a use seconds ago, when the token is used, then nothing is recorded', async () => {
    const store = new MemoryEventStore();
    expect(await new RecordTokenUseHandler(store).execute(new RecordTokenUseCommand('t1', 'users/ada', new Date(Date.now() - 5000).toISOString()))).toBe(false);
    expect(store.events).toEqual([]);
  });

  it('given the append fails, then the use is not noted as recorded: the next request records it', async () => {
    const store = new MemoryEventStore();
    const failing = Object.assign(Object.create(store) as MemoryEventStore, { append: () => Promise.reject(new Error('log unavailable')) });
    const handler = new RecordTokenUseHandler(failing);
    await expect(handler.execute(new RecordTokenUseCommand('t1', 'users/ada', null))).rejects.toThrow('log unavailable');
    (failing as { append: unknown }).append = store.append.bind(store);
    expect(await handler.execute(new RecordTokenUseCommand('t1', 'users/ada', null))).toBe(true);
  });
});
