import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  jsonEvent,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  WrongExpectedVersionError,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { catchUpSubscription } from '../catch-up';
import { IdempotencyConflictError, WrongExpectedRevisionError } from '../event-store.errors';
import type {
  AppendOptions,
  AppendResult,
  EventFilter,
  EventMetadata,
  EventStore,
  EventSubscription,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  ReadAllPage,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
} from '../event-store.port';
import { prepareEvents, validateStreamName } from '../postgres/postgres-event-store';
import { UpcasterRegistry } from '../upcasters';

function toNumber(value: bigint, what: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`${what} ${value} exceeds the safe integer range`);
  return n;
}

function toExpected(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return BigInt(expected);
}

function matches(filter: EventFilter | undefined, event: RecordedEvent): boolean {
  const { stream, type } = event;
  if (filter?.types && !filter.types.includes(type)) return false;
  if (filter?.streamPrefixes && !filter.streamPrefixes.some((p) => stream.startsWith(p))) return false;
  if (filter?.streams && !filter.streams.includes(stream)) return false;
  if (filter?.since && Date.parse(event.createdAt) < Date.parse(filter.since)) return false;
  if (filter?.until && Date.parse(event.createdAt) >= Date.parse(filter.until)) return false;
  if (filter?.actor && event.metadata.actor !== filter.actor) return false;
  return true;
}

/**
 * The EventStore port on EventStoreDB (selected by EVENTSTORE_URL). Global positions are the
 * server's commit positions: increasing, but not dense, so "lag in events" is an estimate there.
 */
export class EsdbEventStore implements EventStore {
  readonly kind = 'esdb' as const;
  private readonly client: EventStoreDBClient;
  private readonly upcasters: UpcasterRegistry;

  constructor(connectionString: string, options: { upcasters?: UpcasterRegistry } = {}) {
    this.client = EventStoreDBClient.connectionString(connectionString);
    this.upcasters = options.upcasters ?? new UpcasterRegistry();
  }

  async append(stream: string, events: NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    validateStreamName(stream);
    const prepared = prepareEvents(events);
    const expected = options.expectedRevision ?? 'any';
    try {
      const result = await this.client.appendToStream(
        stream,
        prepared.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data as never, metadata: e.metadata })),
        { expectedRevision: toExpected(expected) },
      );
      const position = result.position ? toNumber(result.position.commit, 'commit position') : 0;
      return { nextRevision: toNumber(result.nextExpectedRevision, 'revision'), position, duplicate: false };
    } catch (err) {
      if (err instanceof WrongExpectedVersionError) {
        const actual = typeof err.actualVersion === 'bigint' ? toNumber(err.actualVersion, 'revision') : 'no_stream';
        // The server treats a retry with the same event ids as success; anything else is a real conflict.
        const stored = await this.readStream(stream, { direction: 'backwards', limit: prepared.length }).catch(() => []);
        const ids = new Set(stored.map((e) => e.id));
        if (prepared.every((e) => ids.has(e.id))) {
          return { nextRevision: stored[0].revision, position: stored[0].position, duplicate: true };
        }
        if (prepared.some((e) => ids.has(e.id))) throw new IdempotencyConflictError(stream, 'some event ids are already stored');
        throw new WrongExpectedRevisionError(stream, expected, actual);
      }
      throw err;
    }
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const out: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(stream, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision: options.fromRevision !== undefined ? BigInt(options.fromRevision) : backwards ? END : START,
        maxCount: options.limit,
      });
      for await (const resolved of read) {
        const recorded = this.toRecorded(resolved);
        if (recorded) out.push(recorded);
      }
    } catch (err) {
      if ((err as { type?: string }).type === 'stream-not-found') return [];
      throw err;
    }
    return out;
  }

  async readAll(options: ReadAllOptions = {}): Promise<ReadAllPage> {
    const after = options.after ?? 0;
    const limit = options.limit ?? 1000;
    const events: RecordedEvent[] = [];
    let position = after;
    const read = this.client.readAll({
      fromPosition: after > 0 ? { commit: BigInt(after), prepare: BigInt(after) } : START,
      direction: FORWARDS,
      maxCount: limit + 1,
    });
    for await (const resolved of read) {
      const commit = resolved.event?.position?.commit ?? resolved.commitPosition;
      if (commit === undefined) continue;
      const at = toNumber(commit, 'commit position');
      if (at <= after) continue;
      position = at;
      const recorded = this.toRecorded(resolved);
      if (recorded && matches(options.filter, recorded)) events.push(recorded);
      if (events.length >= limit) break;
    }
    return { events, position };
  }

  subscribe(options: SubscribeOptions = {}): EventSubscription {
    return catchUpSubscription(this, options, 500);
  }

  async headPosition(): Promise<number> {
    for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 })) {
      const commit = resolved.event?.position?.commit;
      if (commit !== undefined) return toNumber(commit, 'commit position');
    }
    return 0;
  }

  async waitForAppend(position: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!signal?.aborted && Date.now() < deadline) {
      if ((await this.headPosition()) > position) return;
      await new Promise((r) => setTimeout(r, Math.min(200, Math.max(1, deadline - Date.now()))));
    }
  }

  async ping(): Promise<void> {
    await this.headPosition();
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }

  private toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
    const e = resolved.event;
    if (!e || e.type.startsWith('$') || e.streamId.startsWith('$') || !e.isJson) return undefined;
    const metadata = (e.metadata ?? {}) as EventMetadata;
    return this.upcasters.apply({
      id: e.id,
      stream: e.streamId,
      revision: toNumber(e.revision, 'revision'),
      position: e.position ? toNumber(e.position.commit, 'commit position') : 0,
      type: e.type,
      data: e.data,
      metadata: { ...metadata, schema: metadata.schema ?? 1 },
      createdAt: e.created.toISOString(),
    });
  }
}
