import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { DoubleLog, filterOf, rawAppender, startEsdbDouble, type EsdbDouble, type Expected } from './esdb-double';
import { eventually } from './eventually';

// The double's own rules, each as EventStoreDB documents it; the adapter's tests and the contract run
// over the wire against them, so a rule the double got wrong would pass there unnoticed.
const proposed = (type = 'Happened', data = '{}') => ({ id: randomUUID(), type, contentType: 'application/json', data: Buffer.from(data), customMetadata: Buffer.from('{}') });
const revision = (n: number): Expected => ({ kind: 'revision', revision: n });
const userEvents = (log: DoubleLog) => log.events.filter((e) => !e.stream.startsWith('$'));

describe('the EventStoreDB double: appends', () => {
  let log: DoubleLog;
  beforeEach(() => {
    log = new DoubleLog(1024, 1000);
  });

  it('numbers a stream from revision 0 and the log by positions that increase but are not dense', () => {
    expect(log.append('s-1', { kind: 'no_stream' }, [proposed(), proposed()])).toMatchObject({ ok: true, revision: 1 });
    expect(log.append('s-2', { kind: 'any' }, [proposed()])).toMatchObject({ ok: true, revision: 0 });
    const positions = log.events.map((e) => e.position);
    expect(positions.every((p, i) => i === 0 || p > positions[i - 1])).toBe(true);
    expect(positions.some((p, i) => i > 0 && p - positions[i - 1] > 1)).toBe(true);
    expect(log.stream('s-1')!.map((e) => e.revision)).toEqual([0, 1]);
  });

  it('refuses a wrong expected revision with the actual one, and writes nothing', () => {
    log.append('s-1', { kind: 'no_stream' }, [proposed(), proposed()]);
    const before = log.events.length;
    expect(log.append('s-1', revision(0), [proposed()])).toEqual({ ok: false, wrong: { current: 1, expected: revision(0) } });
    expect(log.append('s-1', revision(5), [proposed()])).toEqual({ ok: false, wrong: { current: 1, expected: revision(5) } });
    expect(log.append('s-1', { kind: 'no_stream' }, [proposed()])).toMatchObject({ ok: false, wrong: { current: 1 } });
    expect(log.append('s-9', { kind: 'stream_exists' }, [proposed()])).toMatchObject({ ok: false, wrong: { current: -1 } });
    expect(log.events).toHaveLength(before);
    expect(log.append('s-1', revision(1), [proposed()])).toMatchObject({ ok: true, revision: 2 });
  });

  it('answers the same events appended again at the same expected revision as a success without a position, writing nothing', () => {
    const events = [proposed(), proposed()];
    const first = log.append('s-1', { kind: 'no_stream' }, events);
    expect(first).toMatchObject({ ok: true, revision: 1 });
    const before = log.events.length;
    expect(log.append('s-1', { kind: 'no_stream' }, events)).toEqual({ ok: true, revision: 1, position: undefined });
    log.append('s-1', revision(1), [proposed()]);
    // Still idempotent once the stream has moved on, from the revision they were appended at.
    expect(log.append('s-1', { kind: 'no_stream' }, events)).toEqual({ ok: true, revision: 1, position: undefined });
    expect(log.events).toHaveLength(before + 1);
  });

  it('refuses a retry that repeats only some of the stored events, with either kind of expectation', () => {
    const a = proposed();
    log.append('s-1', { kind: 'no_stream' }, [a]);
    expect(log.append('s-1', { kind: 'no_stream' }, [a, proposed()])).toMatchObject({ ok: false });
    expect(log.append('s-1', { kind: 'any' }, [a, proposed()])).toMatchObject({ ok: false });
    expect(log.stream('s-1')).toHaveLength(1);
  });

  it('with `any`: writes new events, and answers events that are all stored as a success without writing', () => {
    const events = [proposed(), proposed()];
    expect(log.append('s-1', { kind: 'any' }, events)).toMatchObject({ ok: true, revision: 1 });
    expect(log.append('s-1', { kind: 'any' }, events)).toEqual({ ok: true, revision: 1, position: undefined });
    expect(log.append('s-1', { kind: 'any' }, [proposed()])).toMatchObject({ ok: true, revision: 2 });
    expect(log.stream('s-1')).toHaveLength(3);
  });

  it('refuses an append larger than the maximum append size, whole', () => {
    expect(log.append('s-1', { kind: 'any' }, [proposed('A', 'x'.repeat(600)), proposed('B', 'y'.repeat(600))])).toEqual({ ok: false, tooLarge: 1024 });
    expect(log.stream('s-1')).toBeUndefined();
    expect(log.append('s-1', { kind: 'any' }, [proposed('A', 'x'.repeat(600))])).toMatchObject({ ok: true });
  });
});

describe('the EventStoreDB double: the size of an append', () => {
  it('counts data, metadata and the type as UTF-16 (two bytes a character), as the server does', () => {
    const log = new DoubleLog(1024, 1000);
    const type = 'T'.repeat(10);
    // 1002 + 2 ('{}') + 2 × 10 = 1024: the most one append may count.
    expect(log.append('s-1', { kind: 'any' }, [proposed(type, 'x'.repeat(1002))])).toMatchObject({ ok: true });
    expect(log.append('s-2', { kind: 'any' }, [proposed(type, 'x'.repeat(1003))])).toEqual({ ok: false, tooLarge: 1024 });
  });
});

describe('the EventStoreDB double: system events and filters', () => {
  it('writes $ system events into the log now and then, which filters by type or stream name leave out', () => {
    const log = new DoubleLog(1 << 20, 2);
    for (let i = 0; i < 6; i++) log.append(`order-${i}`, { kind: 'any' }, [proposed(i % 2 ? 'Shipped' : 'Placed')]);
    expect(log.events.filter((e) => e.type.startsWith('$')).length).toBe(4); // the epoch, then one every second append
    const filter = (on: 'type' | 'stream', expression: { regex?: string; prefixes?: string[] }) => {
      const e = { getPrefixList: () => expression.prefixes ?? [], getRegex: () => expression.regex ?? '' };
      return filterOf({ hasEventType: () => on === 'type', getEventType: () => e, getStreamIdentifier: () => e });
    };
    expect(log.events.filter(filter('type', { regex: '^(?:Placed|Shipped)$' })).map((e) => e.stream)).toEqual(userEvents(log).map((e) => e.stream));
    expect(log.events.filter(filter('type', { prefixes: ['Ship'] })).map((e) => e.stream)).toEqual(['order-1', 'order-3', 'order-5']);
    expect(log.events.filter(filter('stream', { prefixes: ['order-'] }))).toHaveLength(6);
    expect(log.events.filter(filter('stream', { regex: '^order-[12]$' })).map((e) => e.stream)).toEqual(['order-1', 'order-2']);
  });
});

/* eslint-disable @typescript-eslint/no-require-imports */
const streamsGrpc = require('@eventstore/db-client/generated/streams_grpc_pb');
const streamsPb = require('@eventstore/db-client/generated/streams_pb');
const sharedPb = require('@eventstore/db-client/generated/shared_pb');
/* eslint-enable @typescript-eslint/no-require-imports */

type ReadOptions = { stream?: string; from?: number; subscribe?: boolean; prefixes?: string[]; max?: number; multiplier?: number };

/**
 * A Read call sent as the client sends it, its answers written as lines: `event <stream>#<revision>
 * @<commit position or none>`, `checkpoint @<position>`, `caught_up`, `confirmed`. A subscription's
 * lines keep coming until `cancel`.
 */
function wireRead(double: EsdbDouble, o: ReadOptions): { lines: string[]; done: Promise<void>; cancel(): void } {
  const client = new streamsGrpc.StreamsClient(/^esdb:\/\/([^/?]+)/.exec(double.url)![1], grpc.credentials.createInsecure());
  const options = new streamsPb.ReadReq.Options();
  options.setReadDirection(streamsPb.ReadReq.Options.ReadDirection.FORWARDS);
  options.setResolveLinks(false);
  const uuid = new streamsPb.ReadReq.Options.UUIDOption();
  uuid.setString(new sharedPb.Empty());
  options.setUuidOption(uuid);
  const position = () => {
    const p = new streamsPb.ReadReq.Options.Position();
    p.setCommitPosition(String(o.from));
    p.setPreparePosition(String(o.from));
    return p;
  };
  if (o.stream) {
    const s = new streamsPb.ReadReq.Options.StreamOptions();
    const id = new sharedPb.StreamIdentifier();
    id.setStreamName(Buffer.from(o.stream));
    s.setStreamIdentifier(id);
    s.setStart(new sharedPb.Empty());
    options.setStream(s);
  } else {
    const a = new streamsPb.ReadReq.Options.AllOptions();
    if (o.from === undefined) a.setStart(new sharedPb.Empty());
    else a.setPosition(position());
    options.setAll(a);
  }
  if (o.subscribe) options.setSubscription(new streamsPb.ReadReq.Options.SubscriptionOptions());
  else options.setCount(String(1000));
  if (o.prefixes) {
    const f = new streamsPb.ReadReq.Options.FilterOptions();
    const expression = new streamsPb.ReadReq.Options.FilterOptions.Expression();
    expression.setPrefixList(o.prefixes);
    f.setStreamIdentifier(expression);
    f.setMax(o.max ?? 32);
    f.setCheckpointintervalmultiplier(o.multiplier ?? 1);
    options.setFilter(f);
  } else options.setNoFilter(new sharedPb.Empty());
  const req = new streamsPb.ReadReq();
  req.setOptions(options);
  const call = client.read(req);
  const lines: string[] = [];
  call.on('data', (resp: any) => {
    if (resp.hasEvent()) {
      const read = resp.getEvent();
      const e = read.getEvent();
      const stream = Buffer.from(e.getStreamIdentifier().getStreamName()).toString();
      lines.push(`event ${stream}#${e.getStreamRevision()} @${read.hasNoPosition() ? 'none' : read.getCommitPosition()}`);
    } else if (resp.hasCheckpoint()) lines.push(`checkpoint @${resp.getCheckpoint().getCommitPosition()}`);
    else if (resp.hasCaughtUp()) lines.push('caught_up');
    else if (resp.hasConfirmation()) lines.push('confirmed');
  });
  const done = new Promise<void>((resolve, reject) => {
    call.on('end', () => resolve());
    call.on('error', (err: { code?: number }) => (err.code === grpc.status.CANCELLED ? resolve() : reject(err)));
  });
  return {
    lines,
    done: done.finally(() => client.close()),
    cancel: () => call.cancel(),
  };
}

describe('the EventStoreDB double on the wire: reads and subscriptions', () => {
  let double: EsdbDouble;
  let raw: ReturnType<typeof rawAppender>;
  const at = (stream: string, revision = 0) => double.events.find((e) => e.stream === stream && e.revision === revision)!.position;
  const append = (...streams: string[]) => Promise.all(streams.map((s) => raw.append(s, [{ id: randomUUID(), type: 'Happened', data: {} }])));

  beforeEach(async () => {
    // No system events but the first epoch, so what a subscription looks at is known.
    double = await startEsdbDouble({ systemEventEvery: 1_000_000 });
    raw = rawAppender(double.url);
    for (const s of ['order-0', 'noise-0', 'order-1', 'noise-1', 'noise-2']) await append(s);
  });
  afterEach(async () => {
    raw.close();
    await double.close();
  });

  it('sends a filtered subscription its matching events, a checkpoint every max × multiplier events looked at (matching or not), caught_up, then live events', async () => {
    const sub = wireRead(double, { subscribe: true, prefixes: ['order-'], max: 1, multiplier: 3 });
    try {
      // Looked at: the epoch, order-0, noise-0 (checkpoint), order-1, noise-1, noise-2 (checkpoint).
      await eventually(() => expect(sub.lines).toContain('caught_up'));
      expect(sub.lines).toEqual(['confirmed', `event order-0#0 @${at('order-0')}`, `checkpoint @${at('noise-0')}`, `event order-1#0 @${at('order-1')}`, `checkpoint @${at('noise-2')}`, 'caught_up']);
      for (const s of ['order-2', 'noise-3', 'noise-4']) await append(s);
      await eventually(() => expect(sub.lines.slice(6)).toEqual([`event order-2#0 @${at('order-2')}`, `checkpoint @${at('noise-4')}`]));
    } finally {
      sub.cancel();
      await sub.done;
    }
  });

  it('starts a subscription from a position after the event there, where a read from the same position includes it', async () => {
    const from = at('order-1');
    const sub = wireRead(double, { subscribe: true, from });
    try {
      await eventually(() => expect(sub.lines).toContain('caught_up'));
      expect(sub.lines).toEqual(['confirmed', `event noise-1#0 @${at('noise-1')}`, `event noise-2#0 @${at('noise-2')}`, 'caught_up']);
    } finally {
      sub.cancel();
      await sub.done;
    }
    const read = wireRead(double, { from });
    await read.done;
    expect(read.lines).toEqual([`event order-1#0 @${from}`, `event noise-1#0 @${at('noise-1')}`, `event noise-2#0 @${at('noise-2')}`]);
  });

  it('sends stream reads without log positions when told to (as some server versions do), and $all reads with them', async () => {
    const withPositions = wireRead(double, { stream: 'order-1' });
    await withPositions.done;
    expect(withPositions.lines).toEqual([`event order-1#0 @${at('order-1')}`]);
    const bare = await startEsdbDouble({ streamReadPositions: false });
    const bareRaw = rawAppender(bare.url);
    try {
      await bareRaw.append('order-1', [{ id: randomUUID(), type: 'Happened', data: {} }]);
      const stream = wireRead(bare, { stream: 'order-1' });
      await stream.done;
      expect(stream.lines).toEqual(['event order-1#0 @none']);
      const all = wireRead(bare, { prefixes: ['order-'] });
      await all.done;
      const position = bare.events.find((e) => e.stream === 'order-1')!.position;
      expect(all.lines).toEqual([`event order-1#0 @${position}`]);
    } finally {
      bareRaw.close();
      await bare.close();
    }
  });
});

type WireAnswer = { revision: string; position: string } | { code: number; exception?: string };

/** An Append call as the client sends it (one stream, these events, an expected revision): the answer, or the call's failure. */
function wireAppend(double: EsdbDouble, stream: string, events: Array<{ id: string; type?: string; data?: string }>, expected: 'any' | 'no_stream' | number = 'any'): Promise<WireAnswer> {
  const client = new streamsGrpc.StreamsClient(/^esdb:\/\/([^/?]+)/.exec(double.url)![1], grpc.credentials.createInsecure());
  return new Promise<WireAnswer>((resolve) => {
    const call = client.append((err: grpc.ServiceError | null, resp: any) => {
      if (err) return resolve({ code: err.code, exception: err.metadata?.get('exception')[0]?.toString() });
      if (resp.hasWrongExpectedVersion()) return resolve({ code: grpc.status.FAILED_PRECONDITION, exception: 'wrong-expected-version' });
      const success = resp.getSuccess();
      resolve({ revision: success.getCurrentRevision(), position: success.hasNoPosition() ? 'none' : success.getPosition().getCommitPosition() });
    });
    const options = new streamsPb.AppendReq.Options();
    const identifier = new sharedPb.StreamIdentifier();
    identifier.setStreamName(Buffer.from(stream, 'utf8'));
    options.setStreamIdentifier(identifier);
    if (expected === 'any') options.setAny(new sharedPb.Empty());
    else if (expected === 'no_stream') options.setNoStream(new sharedPb.Empty());
    else options.setRevision(String(expected));
    const header = new streamsPb.AppendReq();
    header.setOptions(options);
    call.write(header);
    for (const e of events) {
      const message = new streamsPb.AppendReq.ProposedMessage();
      const id = new sharedPb.UUID();
      id.setString(e.id);
      message.setId(id);
      message.getMetadataMap().set('type', e.type ?? 'Happened');
      message.getMetadataMap().set('content-type', 'application/json');
      message.setData(Buffer.from(e.data ?? '{}'));
      message.setCustomMetadata(Buffer.from('{}'));
      const req = new streamsPb.AppendReq();
      req.setProposedMessage(message);
      call.write(req);
    }
    call.end();
  }).finally(() => client.close());
}

describe('the EventStoreDB double on the wire: idempotent appends and outcomes a client cannot know', () => {
  let double: EsdbDouble | undefined;
  afterEach(async () => {
    await double?.close();
    double = undefined;
  });
  const stored = (stream: string) => double!.events.filter((e) => e.stream === stream);

  it('answers an idempotent append without a position by default (servers before 21.x), with the original one when told (21.x to 25.x)', async () => {
    for (const idempotentPositions of [false, true]) {
      const d = (double = await startEsdbDouble({ idempotentPositions }));
      const events = [{ id: randomUUID() }, { id: randomUUID() }];
      const first = await wireAppend(d, 's-1', events, 'no_stream');
      expect(first).toEqual({ revision: '1', position: String(stored('s-1')[1].position) });
      await wireAppend(d, 's-1', [{ id: randomUUID() }], 1);
      const again = await wireAppend(d, 's-1', events, 'no_stream');
      expect([idempotentPositions, again]).toEqual([idempotentPositions, { revision: '1', position: idempotentPositions ? (first as { position: string }).position : 'none' }]);
      expect(stored('s-1')).toHaveLength(3);
      await d.close();
      double = undefined;
    }
  });

  it('writes an append and then fails the call on cue, with a status or by dropping every connection, and serves again', async () => {
    const d = (double = await startEsdbDouble());
    for (const [i, failure] of [{ code: grpc.status.UNAVAILABLE }, { code: grpc.status.DEADLINE_EXCEEDED }, { drop: true as const }].entries()) {
      const stream = `cued-${i}`;
      const id = randomUUID();
      d.failAfterWrite(1, failure);
      const answer = await wireAppend(d, stream, [{ id }], 'no_stream');
      // The client hears only a failure, yet the event is in the log.
      expect(answer).toMatchObject({ code: 'code' in failure ? failure.code : expect.any(Number) });
      expect('revision' in answer).toBe(false);
      expect(stored(stream).map((e) => e.id)).toEqual([id]);
      // The server answers again (after a drop, on the same port), and a retry is idempotent.
      await eventually(async () => expect(await wireAppend(d, stream, [{ id }], 'no_stream')).toEqual({ revision: '0', position: 'none' }));
      expect(stored(stream)).toHaveLength(1);
    }
  });

  it('goes down after the write when told to stay down, until restarted', async () => {
    const d = (double = await startEsdbDouble());
    const id = randomUUID();
    d.failAfterWrite(1, { drop: true, stayDown: true });
    expect(await wireAppend(d, 'down-1', [{ id }])).toMatchObject({ code: expect.any(Number) });
    expect(await wireAppend(d, 'down-2', [{ id: randomUUID() }])).toMatchObject({ code: grpc.status.UNAVAILABLE });
    await d.restart();
    await eventually(async () => expect(await wireAppend(d, 'down-1', [{ id }])).toEqual({ revision: '0', position: 'none' }));
    expect(stored('down-1').map((e) => e.id)).toEqual([id]);
  });

  it('takes stream metadata as an append to $$<stream>, and refuses appends and reads of a tombstoned stream', async () => {
    const d = (double = await startEsdbDouble());
    const acl = { $acl: { $r: ['mds', '$admins'], $w: ['mds', '$admins'] } };
    expect(await wireAppend(d, '$$s-1', [{ id: randomUUID(), type: '$metadata', data: JSON.stringify(acl) }], 'no_stream')).toMatchObject({ revision: '0' });
    expect(d.streamMetadata('s-1')).toEqual(acl);
    expect(d.streamMetadata('s-2')).toBeUndefined();
    await wireAppend(d, 's-1', [{ id: randomUUID() }]);
    const client = new streamsGrpc.StreamsClient(/^esdb:\/\/([^/?]+)/.exec(d.url)![1], grpc.credentials.createInsecure());
    try {
      const tombstone = (stream: string) =>
        new Promise<number>((resolve) => {
          const options = new streamsPb.TombstoneReq.Options();
          const identifier = new sharedPb.StreamIdentifier();
          identifier.setStreamName(Buffer.from(stream, 'utf8'));
          options.setStreamIdentifier(identifier);
          options.setAny(new sharedPb.Empty());
          const req = new streamsPb.TombstoneReq();
          req.setOptions(options);
          client.tombstone(req, (err: grpc.ServiceError | null) => resolve(err ? err.code : grpc.status.OK));
        });
      expect(await tombstone('s-1')).toBe(grpc.status.OK);
      expect(d.tombstoned('s-1')).toBe(true);
      expect(await wireAppend(d, 's-1', [{ id: randomUUID() }])).toMatchObject({ exception: 'stream-deleted' });
      await expect(wireRead(d, { stream: 's-1' }).done).rejects.toMatchObject({ code: grpc.status.FAILED_PRECONDITION });
      expect(await tombstone('s-1')).toBe(grpc.status.FAILED_PRECONDITION);
    } finally {
      client.close();
    }
  });
});
