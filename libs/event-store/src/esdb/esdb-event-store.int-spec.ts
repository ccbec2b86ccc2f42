import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { startEsdbDouble, type EsdbDouble } from '#mds/testing/esdb-double';
import { eventStoreContract } from '../contract/event-store.contract';
import { EventStoreAccessDeniedError, EventStoreUnavailableError, WrongExpectedRevisionError } from '../event-store.errors';
import type { NewEvent } from '../event-store.port';
import { EsdbEventStore } from './esdb-event-store';

// No EventStoreDB server can be installed on the project's machines (not on npm or Debian, no Docker
// engine): the contract runs against the wire-level double of test/support/esdb-double.ts (a test
// fixture, not a server), and against a real server when EVENTSTORE_URL is set.
const real = process.env.EVENTSTORE_URL;
let contractDouble: EsdbDouble | undefined;

eventStoreContract(real ? 'eventstoredb (server at EVENTSTORE_URL)' : 'eventstoredb (wire-level test double)', async () => {
  if (!real) contractDouble = await startEsdbDouble();
  const url = real ?? contractDouble!.url;
  const store = new EsdbEventStore(url);
  return {
    store,
    withUpcasters: (upcasters) => new EsdbEventStore(url, { upcasters }),
    teardown: async () => {
      await store.close();
      await contractDouble?.close();
    },
  };
});

const ev = (type: string, data: unknown = {}): NewEvent => ({ id: randomUUID(), type, data });
/** JSON of about `bytes` bytes that does not compress to nothing. */
const bulk = (bytes: number) => ({ records: Array.from({ length: Math.ceil(bytes / 64) }, (_, i) => ({ id: `r${i}`, text: randomUUID() + randomUUID().slice(0, 14) })) });

// What the adapter does beyond the contract, on the double (these need its switches: a server cannot be
// made to fail on cue or to drop stream positions).
describe('EsdbEventStore on the wire-level double', () => {
  let double: EsdbDouble;
  let store: EsdbEventStore;

  beforeAll(async () => {
    double = await startEsdbDouble({ maxAppendSize: 64 * 1024 });
    store = new EsdbEventStore(double.url, { maxAppendSize: 64 * 1024 });
  });
  afterAll(async () => {
    await store.close();
    await double.close();
  });

  it('keeps an append larger than the maximum append size atomic: its data is staged, the events are one append', async () => {
    const events = [ev('RunAccepted', { n: 3 }), ev('Chunk', bulk(150_000)), ev('Chunk', bulk(40_000)), ev('Chunk', { small: true })];
    const before = double.events.length;
    const result = await store.append('import-big', events, { expectedRevision: 'no_stream' });
    expect(result).toMatchObject({ nextRevision: 3, duplicate: false });
    // The events themselves went in one append: consecutive in the log, nothing between them.
    const written = double.events.slice(before).filter((e) => e.stream === 'import-big');
    expect(written.map((e) => e.revision)).toEqual([0, 1, 2, 3]);
    const at = double.events.indexOf(written[0]);
    expect(double.events.slice(at, at + 4)).toEqual(written);
    // The staged parts came before (with the server's own events) and are no event of the port.
    const staged = double.events.slice(before, at).filter((e) => !e.stream.startsWith('$'));
    expect(staged.every((e) => e.stream.startsWith('mdsstaged-'))).toBe(true);
    expect(staged.length).toBeGreaterThanOrEqual(3);
    const read = await store.readStream('import-big');
    expect(read.map((e) => e.data)).toEqual(events.map((e) => e.data));
    expect(read.every((e) => !('$staged' in e.metadata))).toBe(true);
    const page = await store.readAll({ after: 0, limit: 100 });
    expect(page.events.filter((e) => e.stream === 'import-big').map((e) => e.data)).toEqual(events.map((e) => e.data));
    expect(page.events.some((e) => e.stream.startsWith('mdsstaged-'))).toBe(false);
    // A reader that does not want a type's data does not read the staged parts back.
    const sent = double.eventsSent;
    const light = await store.readAll({ after: 0, limit: 100, filter: { types: ['Chunk'] }, withDataOf: [] });
    expect(light.events.map((e) => e.data)).toEqual([null, null, { small: true }]);
    expect(double.eventsSent - sent).toBe(1 + 3); // the head, and the three chunks without their parts
    // A retry of the same events answers as the first append did.
    expect(await store.append('import-big', events, { expectedRevision: 'no_stream' })).toEqual({ ...result, duplicate: true });
    expect(await store.readStream('import-big')).toHaveLength(4);
  });

  it('reads filtered pages with the server filtering: only the matching events cross the wire', async () => {
    const start = await store.headPosition();
    for (let i = 0; i < 10; i++) await store.append(`noise-${i}`, Array.from({ length: 50 }, () => ev('Noise')));
    await store.append('wanted-1', [ev('Wanted', { i: 1 })]);
    await store.append('wanted-2', [ev('Wanted', { i: 2 })]);
    const sent = double.eventsSent;
    const page = await store.readAll({ after: start, filter: { types: ['Wanted'] } });
    expect(page.events.map((e) => e.data)).toEqual([{ i: 1 }, { i: 2 }]);
    // Two events and the head's one (the head read); the 500 others stayed on the server.
    expect(double.eventsSent - sent).toBeLessThanOrEqual(3);
    expect(page.position).toBeGreaterThanOrEqual(page.events[1].position);
    const byPrefix = await store.readAll({ after: start, filter: { streamPrefixes: ['wanted-'] }, limit: 1 });
    expect(byPrefix.events.map((e) => e.stream)).toEqual(['wanted-1']);
    expect(byPrefix.position).toBe(byPrefix.events[0].position);
  });

  it('wakes a waiting reader when an append commits, from one live subscription', async () => {
    const head = await store.headPosition();
    let woke = false;
    const waiting = store.waitForAppend(head, 30_000).then(() => (woke = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(woke).toBe(false);
    await store.append('wake-1', [ev('Woken')]);
    await Promise.race([waiting, new Promise((r) => setTimeout(r, 10_000))]);
    expect(woke).toBe(true);
    expect(double.subscriptions).toBe(1);
  });

  it('maps unavailability, deadlines and refused credentials to the port errors', async () => {
    double.failNext(1, { code: status.UNAVAILABLE }, 'append');
    await expect(store.append('err-1', [ev('X')])).rejects.toBeInstanceOf(EventStoreUnavailableError);
    double.failNext(1, { code: status.DEADLINE_EXCEEDED }, 'readAll');
    await expect(store.readAll({ after: 0, limit: 1 })).rejects.toBeInstanceOf(EventStoreUnavailableError);
    double.failNext(1, { exception: 'access-denied' }, 'readStream');
    await expect(store.readStream('err-1')).rejects.toBeInstanceOf(EventStoreAccessDeniedError);
    double.failNext(1, { exception: 'not-leader' }, 'subscribe');
    await expect(store.readAll({ after: 0, filter: { types: ['X'] } })).rejects.toBeInstanceOf(EventStoreUnavailableError);
    // And then it works again, and a real conflict is still a conflict.
    await store.append('err-1', [ev('X')], { expectedRevision: 'no_stream' });
    await expect(store.append('err-1', [ev('Y')], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
  });
});

describe('EsdbEventStore against a server whose stream reads carry no positions', () => {
  it('finds the positions in $all, so a retried append and a run\'s last event still have theirs', async () => {
    const double = await startEsdbDouble({ streamReadPositions: false });
    const store = new EsdbEventStore(double.url);
    try {
      const events = [ev('A'), ev('B')];
      const first = await store.append('s-1', events, { expectedRevision: 'no_stream' });
      await store.append('other-1', [ev('C')]);
      const read = await store.readStream('s-1');
      expect(read.map((e) => e.position)).toEqual((await store.readAll({ after: 0 })).events.filter((e) => e.stream === 's-1').map((e) => e.position));
      expect(read[1].position).toBe(first.position);
      expect(await store.append('s-1', events, { expectedRevision: 'no_stream' })).toEqual({ ...first, duplicate: true });
    } finally {
      await store.close();
      await double.close();
    }
  });
});
