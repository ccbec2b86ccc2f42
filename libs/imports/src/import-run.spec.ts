import { EventStoreUnavailableError, type AppendOptions, type EventStore, type NewEvent } from '#mds/event-store';
import { runEventId, runImport, type ImportKind } from './import-run';

// A run's events carry ids derived from the run (and the body's hash), so a retry of the same keyed
// request sends the same ids and the log's idempotence decides whether the first was recorded.
const kind: ImportKind<unknown> = { kind: 'things', chunkEventType: 'ThingsImported', validate: (r) => r };

/** A log that records what is sent to it and refuses it as an append whose outcome is unknown. */
function losingStore(): EventStore & { sent: Array<{ stream: string; events: NewEvent[]; options?: AppendOptions }> } {
  const sent: Array<{ stream: string; events: NewEvent[]; options?: AppendOptions }> = [];
  return {
    kind: 'esdb',
    sent,
    async append(stream: string, events: NewEvent[], options?: AppendOptions) {
      sent.push({ stream, events, options });
      throw new EventStoreUnavailableError('lost', undefined, { outcomeUnknown: true });
    },
    readStream: async () => [],
  } as unknown as EventStore & { sent: typeof sent };
}

describe('runImport: event ids', () => {
  const records = Array.from({ length: 2500 }, (_, i) => ({ id: i }));
  const send = (store: EventStore, body: unknown[], idempotencyKey?: string) => runImport(store, kind, { records: body, atomic: false, caller: 'users/1', idempotencyKey }).catch(() => undefined);

  it('gives the header and every chunk the same ids when a keyed request is sent again', async () => {
    const store = losingStore();
    await send(store, records, 'key-1');
    await send(store, records, 'key-1');
    const [first, second] = store.sent;
    expect(first.stream).toBe(second.stream);
    expect(first.events.map((e) => e.id)).toHaveLength(4); // the header and three chunks
    expect(new Set(first.events.map((e) => e.id)).size).toBe(4);
    expect(second.events.map((e) => e.id)).toEqual(first.events.map((e) => e.id));
    expect(first.options).toEqual({ expectedRevision: 'no_stream' });
  });

  it('gives another body under the same key other ids, and a run without a key ids of its own', async () => {
    const store = losingStore();
    await send(store, records, 'key-1');
    await send(store, records.slice(1), 'key-1');
    await send(store, records);
    await send(store, records);
    const [keyed, otherBody, plain, plainAgain] = store.sent.map((s) => s.events.map((e) => e.id!));
    expect(otherBody.filter((id) => keyed.includes(id))).toEqual([]);
    expect(plainAgain.filter((id) => plain.includes(id))).toEqual([]);
  });

  it('derives an id from (run, body, index), formatted as a UUID', () => {
    expect(runEventId('r-1', 'abc', 0)).toBe(runEventId('r-1', 'abc', 0));
    expect(runEventId('r-1', 'abc', 0)).not.toBe(runEventId('r-1', 'abc', 1));
    expect(runEventId('r-1', 'abc', 0)).not.toBe(runEventId('r-1', 'abd', 0));
    expect(runEventId('r-1', null, 3)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
