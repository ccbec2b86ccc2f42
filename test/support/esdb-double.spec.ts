import { randomUUID } from 'node:crypto';
import { DoubleLog, filterOf, type Expected } from './esdb-double';

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
