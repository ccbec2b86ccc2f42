import { randomUUID } from 'node:crypto';
import { IdempotencyConflictError, WrongExpectedRevisionError } from '../event-store.errors';
import type { EventStore, NewEvent, RecordedEvent } from '../event-store.port';
import { UpcasterRegistry } from '../upcasters';

/** What an adapter's test file hands to the shared contract. */
export interface ContractSubject {
  store: EventStore;
  /** The same adapter with upcasters registered. */
  withUpcasters(registry: UpcasterRegistry): EventStore;
  /**
   * Appends with the writer's transaction held open around the append (random delays before and
   * after it), where the adapter lets a caller own the transaction.
   */
  appendInSlowTransaction?(stream: string, events: NewEvent[], beforeMs: number, afterMs: number): Promise<void>;
  teardown(): Promise<void>;
}

const ev = (type: string, data: unknown = {}, metadata = {}): NewEvent => ({ id: randomUUID(), type, data, metadata });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One behavioural contract for every EventStore adapter. `setup` returns undefined when the
 * adapter cannot run here; the suite is then reported as skipped with `skipReason`.
 */
export function eventStoreContract(adapter: string, setup: () => Promise<ContractSubject | undefined>, skipReason?: string): void {
  const run = skipReason ? describe.skip : describe;
  run(`EventStore contract: ${adapter}${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
    let subject: ContractSubject;
    let store: EventStore;
    let prefix: string;

    beforeAll(async () => {
      const s = await setup();
      if (!s) throw new Error(`${adapter} adapter is not available`);
      subject = s;
      store = s.store;
    });
    afterAll(async () => {
      await subject?.teardown();
    });
    beforeEach(() => {
      prefix = `t${randomUUID().slice(0, 8)}`;
    });

    it('appends to a new stream from revision 0 with increasing log positions', async () => {
      const stream = `${prefix}-a`;
      const first = await store.append(stream, [ev('Opened'), ev('Renamed')], { expectedRevision: 'no_stream' });
      expect(first.nextRevision).toBe(1);
      expect(first.duplicate).toBe(false);
      const second = await store.append(stream, [ev('Closed')], { expectedRevision: 1 });
      expect(second.nextRevision).toBe(2);
      expect(second.position).toBeGreaterThan(first.position);
      const events = await store.readStream(stream);
      expect(events.map((e) => [e.type, e.revision])).toEqual([['Opened', 0], ['Renamed', 1], ['Closed', 2]]);
      expect(events[2].position).toBe(second.position);
      expect(events.every((e, i) => i === 0 || e.position > events[i - 1].position)).toBe(true);
    });

    it('refuses an append whose expected revision is wrong, and appends nothing', async () => {
      const stream = `${prefix}-b`;
      await store.append(stream, [ev('Opened'), ev('Renamed')]);
      await expect(store.append(stream, [ev('X')], { expectedRevision: 0 })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(store.append(stream, [ev('X')], { expectedRevision: 'no_stream' })).rejects.toMatchObject({ actual: 1 });
      await expect(store.append(`${prefix}-missing`, [ev('X')], { expectedRevision: 'stream_exists' })).rejects.toMatchObject({ actual: 'no_stream' });
      await expect(store.append(`${prefix}-missing`, [ev('X')], { expectedRevision: 3 })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['Opened', 'Renamed']);
      expect(await store.readStream(`${prefix}-missing`)).toEqual([]);
    });

    it('lets exactly one of two racing writers with the same expected revision win', async () => {
      const stream = `${prefix}-race`;
      await store.append(stream, [ev('Opened')]);
      const results = await Promise.allSettled([
        store.append(stream, [ev('A')], { expectedRevision: 0 }),
        store.append(stream, [ev('B')], { expectedRevision: 0 }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(rejected.reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('treats a retried append with the same event ids as success and appends nothing new', async () => {
      const stream = `${prefix}-c`;
      const events = [ev('Opened'), ev('Renamed')];
      const first = await store.append(stream, events, { expectedRevision: 'no_stream' });
      const head = await store.headPosition();
      const retry = await store.append(stream, events, { expectedRevision: 'no_stream' });
      expect(retry).toEqual({ nextRevision: first.nextRevision, position: first.position, duplicate: true });
      expect(await store.headPosition()).toBe(head);
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('refuses an append that repeats only some stored event ids', async () => {
      const stream = `${prefix}-d`;
      const a = ev('Opened');
      await store.append(stream, [a]);
      await expect(store.append(stream, [a, ev('Renamed')])).rejects.toBeInstanceOf(IdempotencyConflictError);
      expect(await store.readStream(stream)).toHaveLength(1);
    });

    it('reads a stream forwards, backwards, from a revision and with a limit', async () => {
      const stream = `${prefix}-e`;
      await store.append(stream, ['E0', 'E1', 'E2', 'E3', 'E4'].map((t) => ev(t)));
      expect((await store.readStream(stream, { fromRevision: 2 })).map((e) => e.type)).toEqual(['E2', 'E3', 'E4']);
      expect((await store.readStream(stream, { fromRevision: 1, limit: 2 })).map((e) => e.type)).toEqual(['E1', 'E2']);
      expect((await store.readStream(stream, { direction: 'backwards', limit: 2 })).map((e) => e.type)).toEqual(['E4', 'E3']);
    });

    it('reads a stream with the data of the types asked for (withDataOf); PostgreSQL sends no other data', async () => {
      const stream = `${prefix}-wd`;
      await store.append(stream, [{ type: 'Header', data: { n: 1 } }, { type: 'Chunk', data: { records: [1, 2] } }]);
      // A hint: EventStoreDB sends every event whole, PostgreSQL leaves the data of other types out.
      const other = adapter === 'postgres' ? null : { records: [1, 2] };
      const read = await store.readStream(stream, { withDataOf: ['Header'] });
      expect(read.map((e) => [e.type, e.data])).toEqual([['Header', { n: 1 }], ['Chunk', other]]);
      expect((await store.readStream(stream, { direction: 'backwards', limit: 1, withDataOf: [] })).map((e) => [e.type, e.data, e.revision])).toEqual([['Chunk', other, 1]]);
    });

    it('keeps data and the metadata every event carries', async () => {
      const stream = `${prefix}-f`;
      const data = { name: 'Åsa', nested: { list: [1, 2, 3] }, nothing: null };
      await store.append(stream, [ev('Imported', data, { actor: 'users/1', request_id: 'req-1', run_id: 'run-9', schema: 2 })]);
      const [e] = await store.readStream(stream);
      expect(e.data).toEqual(data);
      expect(e.metadata).toMatchObject({ actor: 'users/1', request_id: 'req-1', run_id: 'run-9', schema: 2 });
      expect(Date.parse(e.metadata.timestamp)).not.toBeNaN();
      expect(Date.parse(e.createdAt)).not.toBeNaN();
      expect(e.id).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('reads all events in position order, after a position, filtered by type and stream prefix', async () => {
      const start = await store.headPosition();
      await store.append(`${prefix}-g1`, [ev('Kept'), ev('Dropped')]);
      await store.append(`${prefix}-g2`, [ev('Kept')]);
      await store.append(`other${prefix}-g3`, [ev('Kept')]);
      const all = await store.readAll({ after: start, limit: 100 });
      expect(all.events.map((e) => e.stream)).toEqual([`${prefix}-g1`, `${prefix}-g1`, `${prefix}-g2`, `other${prefix}-g3`]);
      expect(all.events.every((e, i) => i === 0 || e.position > all.events[i - 1].position)).toBe(true);
      const kept = await store.readAll({ after: start, filter: { types: ['Kept'], streamPrefixes: [`${prefix}-`] } });
      expect(kept.events.map((e) => e.stream)).toEqual([`${prefix}-g1`, `${prefix}-g2`]);
      // A filtered read reports how far it looked (at least past the last event it passed over; a log
      // with system events between may say further), so a reader does not scan the same range again.
      expect(kept.position).toBeGreaterThanOrEqual(all.events[3].position);
      expect((await store.readAll({ after: kept.position, filter: { types: ['Kept'], streamPrefixes: [`${prefix}-`] } })).events).toEqual([]);
      const paged = await store.readAll({ after: start, limit: 2 });
      expect(paged.events).toHaveLength(2);
      expect(paged.position).toBe(paged.events[1].position);
      const rest = await store.readAll({ after: paged.position, limit: 10 });
      expect(rest.events.map((e) => e.id)).toEqual(all.events.slice(2).map((e) => e.id));
    });

    it('filters reads by exact stream, by actor and by the time of the append, as the audit API does', async () => {
      const start = await store.headPosition();
      await store.append(`${prefix}-a1`, [ev('Audited', {}, { actor: 'users/ann', token_id: 't-1' })]);
      await sleep(20);
      const middle = new Date().toISOString();
      await sleep(20);
      await store.append(`${prefix}-a10`, [ev('Audited', {}, { actor: 'integrations/shop' })]);
      await store.append(`${prefix}-a1`, [ev('Audited', {}, { actor: 'integrations/shop' })], { expectedRevision: 0 });
      const read = (filter: object) => store.readAll({ after: start, filter: { types: ['Audited'], ...filter } }).then((p) => p.events.map((e) => `${e.stream}:${e.revision}`));
      expect(await read({ streams: [`${prefix}-a1`] })).toEqual([`${prefix}-a1:0`, `${prefix}-a1:1`]);
      expect(await read({ actor: 'integrations/shop' })).toEqual([`${prefix}-a10:0`, `${prefix}-a1:1`]);
      expect(await read({ since: middle })).toEqual([`${prefix}-a10:0`, `${prefix}-a1:1`]);
      expect(await read({ until: middle })).toEqual([`${prefix}-a1:0`]);
      const [first] = (await store.readAll({ after: start, limit: 1 })).events;
      expect(first.metadata).toMatchObject({ actor: 'users/ann', token_id: 't-1' });
    });

    it('applies upcasters by (type, schema version) on read, leaving the stored event as it was', async () => {
      const stream = `${prefix}-h`;
      await store.append(stream, [ev('CustomerNamed', { name: 'Ada Lovelace' }, { schema: 1 }), ev('CustomerNamed', { first: 'Alan', last: 'Turing' }, { schema: 2 })]);
      const registry = new UpcasterRegistry().register({
        type: 'CustomerNamed',
        fromVersion: 1,
        toVersion: 2,
        upcast: (data) => {
          const [first, ...rest] = String((data as { name: string }).name).split(' ');
          return { first, last: rest.join(' ') };
        },
      });
      const upcasted = await subject.withUpcasters(registry).readStream(stream);
      expect(upcasted.map((e) => [e.data, e.metadata.schema])).toEqual([
        [{ first: 'Ada', last: 'Lovelace' }, 2],
        [{ first: 'Alan', last: 'Turing' }, 2],
      ]);
      expect((await store.readStream(stream))[0].data).toEqual({ name: 'Ada Lovelace' });
    });

    it('delivers every event exactly once, in position order, to a subscriber catching up while 8 writers append 5,000 events', async () => {
      const total = 5000;
      const writers = 8;
      const start = await store.headPosition();
      const received: RecordedEvent[] = [];
      const subscription = store.subscribe({ after: start, filter: { streamPrefixes: [`${prefix}-w`] }, batchSize: 200 });
      const consuming = (async () => {
        for await (const page of subscription) {
          received.push(...page.events);
          if (received.length >= total) break;
        }
      })();
      const appended: string[] = [];
      let remaining = total;
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          while (remaining > 0) {
            const n = Math.min(remaining, 1 + Math.floor(Math.random() * 3));
            remaining -= n;
            const events = Array.from({ length: n }, () => ev('Written', { w }));
            const stream = `${prefix}-w${w}-s${Math.floor(Math.random() * 20)}`;
            if (subject.appendInSlowTransaction) {
              await subject.appendInSlowTransaction(stream, events, Math.random() * 3, Math.random() < 0.2 ? Math.random() * 2 : 0);
            } else {
              await sleep(Math.random() * 3);
              await store.append(stream, events);
            }
            appended.push(...events.map((e) => e.id!));
          }
        }),
      );
      const timeout = setTimeout(() => void subscription.close(), 60_000);
      await consuming;
      clearTimeout(timeout);
      await subscription.close();
      expect(received).toHaveLength(total);
      expect(new Set(received.map((e) => e.id)).size).toBe(total);
      expect(new Set(received.map((e) => e.id))).toEqual(new Set(appended));
      for (let i = 1; i < received.length; i++) expect(received[i].position).toBeGreaterThan(received[i - 1].position);
      // Within each stream the revisions arrive gap-free and in order.
      const next = new Map<string, number>();
      for (const e of received) {
        expect(e.revision).toBe(next.get(e.stream) ?? 0);
        next.set(e.stream, e.revision + 1);
      }
    }, 120_000);
  });
}
