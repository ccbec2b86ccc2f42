import { randomUUID } from 'node:crypto';
import {
  WrongExpectedRevisionError,
  type AppendOptions,
  type AppendResult,
  type EventFilter,
  type EventStore,
  type EventSubscription,
  type NewEvent,
  type ReadAllOptions,
  type ReadAllPage,
  type ReadStreamOptions,
  type RecordedEvent,
} from '#mds/event-store';

const matches = (e: RecordedEvent, f: EventFilter | undefined) =>
  !f ||
  ((!f.types || f.types.includes(e.type)) &&
    (!f.streams || f.streams.includes(e.stream)) &&
    (!f.streamPrefixes || f.streamPrefixes.some((p) => e.stream.startsWith(p))) &&
    (!f.actor || e.metadata.actor === f.actor));

/**
 * The EventStore port in memory, for handlers' given/when/then unit tests: expected revisions and
 * idempotent event ids as the adapters keep them (the contract suite holds the adapters to the rest).
 * `given` appends earlier events; `appended` is what came after the last `given` (the "then").
 */
export class MemoryEventStore implements EventStore {
  readonly kind = 'postgres';
  readonly events: RecordedEvent[] = [];
  private mark = 0;
  /** Every append's options, in order (what a handler expected of the stream). */
  readonly appends: Array<{ stream: string; count: number; options?: AppendOptions }> = [];

  /** Given these events in `stream` (appended at any revision). */
  async given(stream: string, ...events: NewEvent[]): Promise<this> {
    await this.append(stream, events, { expectedRevision: 'any' });
    this.mark = this.events.length;
    this.appends.length = 0;
    return this;
  }

  /** What the log holds so far is the given (appended by earlier commands): `appended` starts after it. */
  givenSoFar(): this {
    this.mark = this.events.length;
    this.appends.length = 0;
    return this;
  }

  /** Events appended since the last `given`, as `{stream, type, data, metadata}`. */
  appended(): Array<Pick<RecordedEvent, 'stream' | 'type' | 'data' | 'metadata'>> {
    return this.events.slice(this.mark).map(({ stream, type, data, metadata }) => ({ stream, type, data, metadata }));
  }

  async append(stream: string, events: NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    const current = this.events.filter((e) => e.stream === stream);
    const last = current.length - 1;
    const ids = events.map((e) => e.id);
    if (ids.length > 0 && ids.every((id) => id !== undefined && this.events.some((e) => e.id === id))) {
      const stored = this.events.filter((e) => ids.includes(e.id));
      return { nextRevision: stored[stored.length - 1].revision, position: stored[stored.length - 1].position, duplicate: true };
    }
    const expected = options.expectedRevision ?? 'any';
    const fits = expected === 'any' || (expected === 'no_stream' ? last < 0 : expected === 'stream_exists' ? last >= 0 : expected === last);
    if (!fits) throw new WrongExpectedRevisionError(stream, expected, last < 0 ? 'no_stream' : last);
    this.appends.push({ stream, count: events.length, options });
    const now = new Date().toISOString();
    for (const [i, e] of events.entries()) {
      this.events.push({
        id: e.id ?? randomUUID(),
        stream,
        revision: last + 1 + i,
        position: this.events.length + 1,
        type: e.type,
        data: JSON.parse(JSON.stringify(e.data ?? null)) as unknown,
        metadata: { schema: 1, timestamp: now, ...e.metadata },
        createdAt: now,
      });
    }
    return { nextRevision: last + events.length, position: this.events.length, duplicate: false };
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    let found = this.events.filter((e) => e.stream === stream && e.revision >= (options.fromRevision ?? 0));
    if (options.direction === 'backwards') found = found.reverse();
    return found.slice(0, options.limit ?? found.length);
  }

  async readAll(options: ReadAllOptions = {}): Promise<ReadAllPage> {
    const after = options.after ?? 0;
    const found = this.events.filter((e) => e.position > after && matches(e, options.filter)).slice(0, options.limit ?? this.events.length);
    return { events: found, position: found.length > 0 ? found[found.length - 1].position : Math.max(after, this.events.length) };
  }

  subscribe(): EventSubscription {
    throw new Error('MemoryEventStore does not subscribe: projections are tested against PostgreSQL');
  }

  async headPosition(): Promise<number> {
    return this.events.length;
  }

  async waitForAppend(): Promise<void> {}

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
