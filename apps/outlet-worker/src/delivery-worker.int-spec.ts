import {
  AttemptLog,
  DELIVERY_ATTEMPTED,
  INITIAL_OUTLET_STATE,
  outletStateOf,
  outletStream,
  type DeliveryAttempted,
  type OutletState,
} from '#mds/datatargets';
import type { NewEvent } from '#mds/event-store';
import { datasyncProjection, DatatargetsReadModel, datatargetsProjection, findOutlet, outletLog, outletLogEntry, READ_MESSAGES_SQL, waitForProjection } from '#mds/projections';
import { openProjectingRuntime, type TestRuntime } from '#mds/testing/runtime';
import { controlOutlet, createDatatarget, createOutlet, postMessages } from '#mds/testing/datatargets';
import { eventually } from '#mds/testing/eventually';
import { MessageReader } from './message-reader';

const meta = { actor: 'test' };

/** A successful attempt at messages first..last, as the worker records it. */
function attempt(outletId: string, datatargetId: string, entryNumber: number, first: number, last: number): NewEvent {
  const state: OutletState = { ...INITIAL_OUTLET_STATE, last_delivered_message_number: last, delivered_batch_count: entryNumber, entry_count: entryNumber, batch_number: entryNumber + 1 };
  const data: DeliveryAttempted = {
    outlet_id: outletId,
    datatarget_id: datatargetId,
    entry: { entry_number: entryNumber, entry_key: `${outletId}:${entryNumber}`, date: new Date().toISOString(), batch_number: entryNumber, batch_size: last - first + 1, first_message_number: first, status: 'OK', http_status: 200, request_time_ms: 1, http_request_available: true },
    last_message_number: last,
    webhook_id: `msg_${outletId}_${entryNumber}`,
    http_request: `POST /hook HTTP/1.1\r\n\r\n[${first}..${last}]`,
    http_reply: 'HTTP/1.1 200 OK\r\n\r\n',
    state,
  };
  return { type: DELIVERY_ATTEMPTED, data, metadata: meta };
}

describe('outlet worker: attempts recorded in groups, messages read ahead', () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await openProjectingRuntime({ projections: [datatargetsProjection, datasyncProjection] });
  });
  afterAll(async () => {
    await rt?.close();
  });

  async function outlet(): Promise<{ datatargetId: string; outletId: string }> {
    const { datatarget_id: datatargetId } = await createDatatarget(rt.store, { datatarget_type: 'messages', name: 'log' }, meta);
    const { outlet_id: outletId } = await createOutlet(rt.store, rt.accessDeps.secrets, datatargetId, { outlet_type: 'webhook', request: { url: 'http://example.com/hook', content: '{(data)}', is_batched: true } }, meta);
    return { datatargetId, outletId };
  }

  it('appends attempts in groups, in order, at consecutive revisions, and projects every entry', async () => {
    const { datatargetId, outletId } = await outlet();
    const stream = outletStream(outletId);
    const [created] = await rt.store.readStream(stream, { direction: 'backwards', limit: 1 });
    const appends: number[] = [];
    const store = { ...rt.store, append: (s: string, events: NewEvent[], o: never) => (appends.push(events.length), rt.store.append(s, events, o)) } as typeof rt.store;
    let recorded = 0;
    const log = new AttemptLog(store, stream, created ? created.revision : 'no_stream', (n) => (recorded += n), { group: 2, lingerMs: 60_000 });
    for (let i = 1; i <= 6; i++) log.add([attempt(outletId, datatargetId, i, (i - 1) * 10 + 1, i * 10)], 10);
    expect(log.unrecorded).toBe(6);
    expect(await log.drain()).toBe(true);
    expect(log.unrecorded).toBe(0);
    // The first two went as soon as they were a group; the four made while that append was in flight went together.
    expect(appends).toEqual([2, 4]);
    expect(recorded).toBe(60);
    const events = await rt.store.readStream(stream);
    const attempts = events.filter((e) => e.type === DELIVERY_ATTEMPTED).map((e) => (e.data as DeliveryAttempted).entry.entry_number);
    expect(attempts).toEqual([1, 2, 3, 4, 5, 6]);
    expect(outletStateOf(events[events.length - 1]).last_delivered_message_number).toBe(60);

    // The datatargets projection takes the run of attempts with one statement: every entry, the latest state.
    await waitForProjection(rt.pool, 'datatargets', events[events.length - 1].position);
    const projected = await outletLog(rt.pool, outletId, { limit: 100, order: 'ascending' });
    expect(projected.entries.map((e) => e.entry_number)).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await outletLogEntry(rt.pool, datatargetId, outletId, 6))?.http_request).toContain('[51..60]');
    expect((await findOutlet(rt.pool, datatargetId, outletId))?.state.last_delivered_message_number).toBe(60);
  });

  it('appends a lone attempt once it has waited the linger time, without a drain', async () => {
    const { datatargetId, outletId } = await outlet();
    const stream = outletStream(outletId);
    const [created] = await rt.store.readStream(stream, { direction: 'backwards', limit: 1 });
    let recorded = 0;
    const appends: number[] = [];
    const store = { ...rt.store, append: (s: string, events: NewEvent[], o: never) => (appends.push(events.length), rt.store.append(s, events, o)) } as typeof rt.store;
    const log = new AttemptLog(store, stream, created ? created.revision : 'no_stream', (n) => (recorded += n), { group: 16, lingerMs: 20 });
    log.add([attempt(outletId, datatargetId, 1, 1, 10)], 10);
    // Short of a group it waits rather than being appended at once, then goes alone.
    expect(appends).toEqual([]);
    await eventually(() => recorded === 10);
    expect(appends).toEqual([1]);
    expect(log.unrecorded).toBe(0);
    expect((await rt.store.readStream(stream)).filter((e) => e.type === DELIVERY_ATTEMPTED)).toHaveLength(1);
  });

  it('waits for room: no more than the allowed number of attempts stay unrecorded', async () => {
    const { datatargetId, outletId } = await outlet();
    const stream = outletStream(outletId);
    const [created] = await rt.store.readStream(stream, { direction: 'backwards', limit: 1 });
    const log = new AttemptLog(rt.store, stream, created ? created.revision : 'no_stream', () => undefined);
    let most = 0;
    for (let i = 1; i <= 20; i++) {
      log.add([attempt(outletId, datatargetId, i, i, i)], 1);
      most = Math.max(most, log.unrecorded);
      await log.roomFor(3);
      expect(log.unrecorded).toBeLessThan(3);
    }
    expect(most).toBeGreaterThanOrEqual(1);
    expect(await log.drain()).toBe(true);
    expect((await rt.store.readStream(stream)).filter((e) => e.type === DELIVERY_ATTEMPTED)).toHaveLength(20);
  });

  it('drops what it holds when an operator wrote first, and appends nothing after that', async () => {
    const { datatargetId, outletId } = await outlet();
    const stream = outletStream(outletId);
    const [created] = await rt.store.readStream(stream, { direction: 'backwards', limit: 1 });
    const log = new AttemptLog(rt.store, stream, created ? created.revision : 'no_stream', () => undefined);
    log.add([attempt(outletId, datatargetId, 1, 1, 10)], 10);
    expect(await log.drain()).toBe(true);
    // An operator pauses the outlet behind the worker's back: the worker's next append is at a stale revision.
    await controlOutlet(rt.store, outletId, 'pause', meta);
    log.add([attempt(outletId, datatargetId, 2, 11, 20)], 10);
    log.add([attempt(outletId, datatargetId, 3, 21, 30)], 10);
    expect(await log.drain()).toBe(false);
    expect(log.conflicted).toBe(true);
    expect(log.unrecorded).toBe(0);
    log.add([attempt(outletId, datatargetId, 4, 31, 40)], 10);
    expect(await log.drain()).toBe(false);
    const events = await rt.store.readStream(stream);
    expect(events.filter((e) => e.type === DELIVERY_ATTEMPTED).map((e) => (e.data as DeliveryAttempted).entry.entry_number)).toEqual([1]);
    expect(outletStateOf(events[events.length - 1]).paused).toBe('operator');
  });

  it('reads messages several batches at a time and cuts batches from them, keeping a failed batch for its retry', async () => {
    const { datatarget_id: id } = await createDatatarget(rt.store, { datatarget_type: 'messages', name: 'reader' }, meta);
    const { position } = await postMessages(rt.store, id, { messages: Array.from({ length: 250 }, (_, j) => ({ n: j + 1 })) }, meta);
    await waitForProjection(rt.pool, 'datatargets', position);
    let reads = 0;
    const limits: unknown[] = [];
    const counted = (text: string, values?: unknown[]) => {
      if (text !== READ_MESSAGES_SQL) return;
      reads++;
      limits.push(values?.[2]);
    };
    const pool = {
      connect: async () => {
        const client = await rt.pool.connect();
        return { query: (text: string, values?: unknown[]) => (counted(text, values), client.query(text, values)), release: (err?: Error) => client.release(err) };
      },
    } as unknown as typeof rt.pool;
    const reader = new MessageReader(new DatatargetsReadModel({ pool }), id);
    const numbers = (b: { batch: Array<{ number: number }> }) => b.batch.map((r) => Number(r.number));
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

    const first = await reader.batch(0, 20);
    expect(numbers(first)).toEqual(range(1, 20));
    expect(first.readAhead).toBe(false);
    // The first read takes that batch alone, so it goes out at once; reading ahead starts beside it.
    expect(limits[0]).toBe(20);
    // A retry of a failed batch: the same messages, from what was read.
    const retry = await reader.batch(0, 20);
    expect(numbers(retry)).toEqual(range(1, 20));
    expect(retry.readAhead).toBe(true);
    for (let after = 20; after < 240; after += 20) expect(numbers(await reader.batch(after, 20))).toEqual(range(after + 1, after + 20));
    // The tail: fewer than a batch, then nothing.
    expect(numbers(await reader.batch(240, 20))).toEqual(range(241, 250));
    let rest = await reader.batch(250, 20);
    if (rest.readAhead) rest = await reader.batch(250, 20); // a read made earlier decides nothing: read again
    expect(rest).toEqual({ batch: [], readAhead: false });
    // 250 messages in batches of 20 took a few reads of up to 200, not one per batch.
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThanOrEqual(5);
    expect(limits).toContain(200);
    // A rewind (delivery moved back) reads afresh from there, one batch first.
    expect(numbers(await reader.batch(99, 20))).toEqual(range(100, 119));
    expect(limits[reads - 1]).toBe(20);
  });
});
