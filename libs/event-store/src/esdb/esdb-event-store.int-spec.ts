import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { startEsdbDouble, type EsdbDouble } from '#mds/testing/esdb-double';
import { eventually } from '#mds/testing/eventually';
import { eventStoreContract } from '../contract/event-store.contract';
import { EventStoreAccessDeniedError, EventStoreAppendTooLargeError, EventStoreUnavailableError, WrongExpectedRevisionError } from '../event-store.errors';
import type { NewEvent } from '../event-store.port';
import { EsdbEventStore } from './esdb-event-store';

// No EventStoreDB server can be installed on the project's machines (not on npm or Debian, no Docker
// engine): the contract always runs against the wire-level double of test/support/esdb-double.ts (a
// test fixture, not a server), and against a real server as well when EVENTSTORE_URL is set.
function contractOn(adapter: string, connect: () => Promise<{ url: string; close?: () => Promise<void> }>): void {
  eventStoreContract(adapter, async () => {
    const { url, close } = await connect();
    const store = new EsdbEventStore(url);
    const others: EsdbEventStore[] = [];
    return {
      store,
      withUpcasters: (upcasters) => others[others.push(new EsdbEventStore(url, { upcasters })) - 1],
      teardown: async () => {
        await Promise.all([store, ...others].map((s) => s.close()));
        await close?.();
      },
    };
  });
}
contractOn('eventstoredb (wire-level test double)', async () => {
  const double = await startEsdbDouble();
  return { url: double.url, close: () => double.close() };
});
// Servers 21.x to 25.x answer an idempotent append with the original position, not as a duplicate.
contractOn('eventstoredb (test double answering idempotent appends with their position)', async () => {
  const double = await startEsdbDouble({ idempotentPositions: true });
  return { url: double.url, close: () => double.close() };
});
const real = process.env.EVENTSTORE_URL;
if (real) contractOn('eventstoredb (server at EVENTSTORE_URL)', async () => ({ url: real }));

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
    // Only as much is staged as makes the append fit: the 150 kB chunk; the 40 kB one stays in it.
    expect(new Set(staged.map((e) => e.stream))).toEqual(new Set([`mdsstaged-${events[1].id}`]));
    // A reader that does not want a type's data does not read the staged parts back.
    const sent = double.eventsSent;
    const light = await store.readAll({ after: 0, limit: 100, filter: { types: ['Chunk'] }, withDataOf: [] });
    expect(light.events.map((e) => e.data)).toEqual([null, events[2].data, { small: true }]);
    expect(double.eventsSent - sent).toBe(1 + 3); // the head, and the three chunks without their parts
    // A retry of the same events answers as the first append did.
    expect(await store.append('import-big', events, { expectedRevision: 'no_stream' })).toEqual({ ...result, duplicate: true });
    expect(await store.readStream('import-big')).toHaveLength(4);
  });

  it('fits many small events that together exceed the maximum append size into one append, staging the largest data first', async () => {
    // 180 events of 300 to 480 bytes each (under 512, where staging began before) and 20 of a few
    // bytes: about 80 kB against a limit of 64 KiB.
    const sized = Array.from({ length: 180 }, (_, i) => ev('Row', { i, text: 'x'.repeat(300 + ((i * 37) % 180)) }));
    const tiny = Array.from({ length: 20 }, (_, i) => ev('Tick', { i }));
    const events = [...sized.slice(0, 90), ...tiny, ...sized.slice(90)];
    const before = double.events.length;
    const result = await store.append('many-small', events, { expectedRevision: 'no_stream' });
    expect(result).toMatchObject({ nextRevision: events.length - 1, duplicate: false });
    const written = double.events.slice(before).filter((e) => e.stream === 'many-small');
    const at = double.events.indexOf(written[0]);
    expect(double.events.slice(at, at + events.length)).toEqual(written);
    const stagedIds = new Set(double.events.slice(before, at).filter((e) => e.stream.startsWith('mdsstaged-')).map((e) => e.stream.slice('mdsstaged-'.length)));
    const size = (e: NewEvent) => JSON.stringify(e.data).length;
    const staged = events.filter((e) => stagedIds.has(e.id!));
    const kept = events.filter((e) => !stagedIds.has(e.id!));
    // Some, not all: the largest, until the append fitted; none of the tiny ones.
    expect(staged.length).toBeGreaterThan(0);
    expect(kept.length).toBeGreaterThan(tiny.length);
    expect(Math.min(...staged.map(size))).toBeGreaterThanOrEqual(Math.max(...kept.map(size)));
    expect(await store.readStream('many-small')).toEqual(events.map((e) => expect.objectContaining({ id: e.id, data: e.data })));
    expect(await store.append('many-small', events, { expectedRevision: 'no_stream' })).toEqual({ ...result, duplicate: true });
  });

  it('refuses, writing nothing, an append that cannot fit even with every event staged, naming the limit', async () => {
    // 3,000 events of a few bytes: staging them would make each larger. The large one alone would fit.
    const events = [ev('Large', bulk(100_000)), ...Array.from({ length: 3000 }, (_, i) => ev('Tick', { i }))];
    const [logged, calls] = [double.events.length, double.appendCalls];
    const refused = await store.append('too-many', events).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(EventStoreAppendTooLargeError);
    expect(refused).toMatchObject({ code: 'MDS_EVENT_LOG_APPEND_TOO_LARGE', limit: 64 * 1024, message: expect.stringContaining('maximum append size of 65536 bytes') });
    // Decided before anything was sent: not even the large event's data was staged.
    expect([double.events.length, double.appendCalls]).toEqual([logged, calls]);
    expect(await store.readStream('too-many')).toEqual([]);
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

  it('reads a page with an empty filter (the audit log without parameters) as a page, not as 500 events', async () => {
    const start = await store.headPosition();
    await store.append('paged-1', Array.from({ length: 600 }, (_, i) => ev('Paged', { i })));
    const sent = double.eventsSent;
    const page = await store.readAll({ after: start, limit: 3, filter: {} });
    expect(page.events.map((e) => e.data)).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
    // The page and one more (whether another follows); before, an empty filter read 500 and checked each here.
    expect(double.eventsSent - sent).toBeLessThanOrEqual(4);
    // A filter only this side can check (the actor) still reads on until the page is full.
    const byActor = await store.readAll({ after: start, limit: 3, filter: { actor: 'nobody' } });
    expect(byActor.events).toEqual([]);
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
    // An append whose answer is lost is tried again (twice); still lost, its outcome is unknown.
    const calls = double.appendCalls;
    double.failNext(3, { code: status.UNAVAILABLE }, 'append');
    await expect(store.append('err-1', [ev('X')])).rejects.toMatchObject({ constructor: EventStoreUnavailableError, outcomeUnknown: true, message: expect.stringContaining('outcome is unknown') });
    expect(double.appendCalls - calls).toBe(3);
    expect(double.events.some((e) => e.stream === 'err-1')).toBe(false);
    // A node that is not the leader refuses before writing: known, not tried again.
    double.failNext(1, { exception: 'not-leader' }, 'append');
    await expect(store.append('err-1', [ev('X')])).rejects.toMatchObject({ constructor: EventStoreUnavailableError, outcomeUnknown: false });
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

describe('EsdbEventStore against a server with a smaller maximum append size than configured', () => {
  it("maps the server's own refusal (MaximumAppendSizeExceeded) to the port's too-large append, with the server's limit", async () => {
    const double = await startEsdbDouble({ maxAppendSize: 16 * 1024 });
    const store = new EsdbEventStore(double.url, { maxAppendSize: 1024 * 1024 });
    try {
      const refused = await store.append('s-1', [ev('Big', bulk(40_000))]).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(EventStoreAppendTooLargeError);
      expect(refused).toMatchObject({ code: 'MDS_EVENT_LOG_APPEND_TOO_LARGE', limit: 16 * 1024 });
      expect(double.events.some((e) => e.stream === 's-1')).toBe(false);
      await store.append('s-1', [ev('Small', { ok: true })]);
      expect((await store.readStream('s-1')).map((e) => e.data)).toEqual([{ ok: true }]);
    } finally {
      await store.close();
      await double.close();
    }
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

// An append the server committed and whose answer was then lost (a status, a deadline, a dropped
// connection): the adapter asks the log before appending again, so it answers as a duplicate at the
// stored position whichever way the server answers idempotent appends (no position before 21.x, the
// original one since).
describe.each([
  ['without a position (servers before 21.x)', false],
  ['with the original position (servers 21.x to 25.x)', true],
])('EsdbEventStore when an append commits and its answer is lost, the server answering idempotent appends %s', (_answer, idempotentPositions) => {
  let double: EsdbDouble;
  let store: EsdbEventStore;

  beforeAll(async () => {
    double = await startEsdbDouble({ idempotentPositions, maxAppendSize: 64 * 1024 });
    store = new EsdbEventStore(double.url, { maxAppendSize: 64 * 1024 });
  });
  afterAll(async () => {
    await store.close();
    await double.close();
  });

  it.each([
    ['UNAVAILABLE', { code: status.UNAVAILABLE }],
    ['DEADLINE_EXCEEDED', { code: status.DEADLINE_EXCEEDED }],
    ['the connection dropped', { drop: true as const }],
  ])('resolves as a duplicate at the stored position after %s, the events stored once', async (_how, failure) => {
    const stream = `lost-${randomUUID().slice(0, 8)}`;
    await store.append(stream, [ev('Opened')]);
    const events: NewEvent[] = [{ type: 'A', data: { n: 1 } }, { type: 'B', data: { n: 2 } }];
    const calls = double.appendCalls;
    double.failAfterWrite(1, failure);
    const result = await store.append(stream, events, { expectedRevision: 0 });
    const stored = double.events.filter((e) => e.stream === stream);
    expect(stored.map((e) => e.type)).toEqual(['Opened', 'A', 'B']);
    expect(result).toEqual({ nextRevision: 2, position: stored[2].position, duplicate: true });
    // Decided by reading: no second append.
    expect(double.appendCalls - calls).toBe(1);
  });

  it('does the same for an append whose data was staged, and for one with `any`', async () => {
    const events = [ev('RunAccepted'), ev('Chunk', bulk(150_000))];
    double.failAfterWrite(1, { code: status.UNAVAILABLE }, 'lost-staged');
    const result = await store.append('lost-staged', events, { expectedRevision: 'no_stream' });
    const stored = double.events.filter((e) => e.stream === 'lost-staged');
    expect(result).toEqual({ nextRevision: 1, position: stored[1].position, duplicate: true });
    expect((await store.readStream('lost-staged')).map((e) => e.data)).toEqual(events.map((e) => e.data));
    await store.append('lost-any', [ev('Other')]);
    double.failAfterWrite(1, { code: status.UNAVAILABLE });
    const any = await store.append('lost-any', [{ type: 'C', data: {} }]);
    expect(any).toEqual({ nextRevision: 1, position: double.events.filter((e) => e.stream === 'lost-any')[1].position, duplicate: true });
  });

  it('says the outcome is unknown when the log cannot be asked either, and a later append of the same ids is a duplicate', async () => {
    // Ids the adapter makes up: no read before the first append, so the two failing reads are the checks after it.
    const events: NewEvent[] = [{ type: 'A', data: {} }, { type: 'B', data: {} }];
    double.failAfterWrite(1, { code: status.UNAVAILABLE });
    double.failNext(2, { code: status.UNAVAILABLE }, 'readStream');
    const lost = await store.append('lost-unknown', events, { expectedRevision: 'no_stream' }).catch((err: unknown) => err);
    expect(lost).toBeInstanceOf(EventStoreUnavailableError);
    expect(lost).toMatchObject({ outcomeUnknown: true, message: expect.stringContaining('a retry with the same event ids is safe') });
    const stored = double.events.filter((e) => e.stream === 'lost-unknown');
    expect(stored).toHaveLength(2);
    const retry = stored.map((e, i) => ({ ...events[i], id: e.id }));
    expect(await store.append('lost-unknown', retry, { expectedRevision: 'no_stream' })).toEqual({ nextRevision: 1, position: stored[1].position, duplicate: true });
    expect(double.events.filter((e) => e.stream === 'lost-unknown')).toHaveLength(2);
  });

  it('answers a plain repeat of stored events as a duplicate at their position, and new events at theirs', async () => {
    const events = [ev('A'), ev('B')];
    const first = await store.append('repeated', events, { expectedRevision: 'no_stream' });
    expect(first).toMatchObject({ nextRevision: 1, duplicate: false });
    expect(await store.append('repeated', events, { expectedRevision: 'no_stream' })).toEqual({ ...first, duplicate: true });
    expect(await store.append('repeated', events)).toEqual({ ...first, duplicate: true });
    const next = await store.append('repeated', [ev('C')], { expectedRevision: 1 });
    expect(next).toEqual({ nextRevision: 2, position: double.events.filter((e) => e.stream === 'repeated')[2].position, duplicate: false });
  });
});

describe('EsdbEventStore: staged streams', () => {
  let double: EsdbDouble;
  beforeAll(async () => {
    double = await startEsdbDouble({ maxAppendSize: 64 * 1024 });
  });
  afterAll(async () => {
    await double.close();
  });

  it('sets an ACL on each staged stream when the service connects as a user, once', async () => {
    const store = new EsdbEventStore(double.url.replace('esdb://', 'esdb://mds:secret@'), { maxAppendSize: 64 * 1024 });
    try {
      const events = [ev('Chunk', bulk(100_000))];
      await store.append('acl-1', events, { expectedRevision: 'no_stream' });
      const roles = ['mds', '$admins'];
      expect(double.streamMetadata(`mdsstaged-${events[0].id}`)).toEqual({ $acl: { $r: roles, $w: roles, $d: roles, $mr: roles, $mw: roles } });
      await store.append('acl-1', events, { expectedRevision: 'no_stream' });
      expect(double.events.filter((e) => e.stream === `$$mdsstaged-${events[0].id}`)).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('tombstones the staged streams of an append refused outright, and keeps those of an append whose outcome is unknown', async () => {
    const store = new EsdbEventStore(double.url, { maxAppendSize: 64 * 1024 });
    try {
      await store.append('staged-1', [ev('Opened')]);
      const refused = [ev('Chunk', bulk(100_000))];
      await expect(store.append('staged-1', refused, { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      expect(double.tombstoned(`mdsstaged-${refused[0].id}`)).toBe(true);
      // Committed, and then the server went down: the outcome is unknown, and the event names its parts.
      const unknown = [ev('Chunk', bulk(100_000))];
      double.failAfterWrite(1, { drop: true, stayDown: true }, 'staged-2');
      await expect(store.append('staged-2', unknown, { expectedRevision: 'no_stream' })).rejects.toMatchObject({ outcomeUnknown: true });
      await double.restart();
      expect(double.tombstoned(`mdsstaged-${unknown[0].id}`)).toBe(false);
      await eventually(async () => expect((await store.readStream('staged-2')).map((e) => e.data)).toEqual([unknown[0].data]));
    } finally {
      await store.close();
    }
  });
});
