import { createHash } from 'node:crypto';
import {
  ANY,
  BACKWARDS,
  binaryEvent,
  END,
  eventTypeFilter,
  EventStoreDBClient,
  FORWARDS,
  isCommandError,
  jsonEvent,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { catchUpSubscription } from '../catch-up';
import { EventStoreAccessDeniedError, EventStoreAppendTooLargeError, EventStoreUnavailableError, IdempotencyConflictError, WrongExpectedRevisionError } from '../event-store.errors';
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

/** EventStoreDB's default MaxAppendSize (the server's `--max-append-size`). */
export const ESDB_DEFAULT_MAX_APPEND_SIZE = 1024 * 1024;
/** Category of the streams holding staged data (see `append`), and the type of their events. */
const STAGED_PREFIX = 'mdsstaged-';
const STAGED_PART = 'MdsStagedPart';
/** Room left in an append below MaxAppendSize, for safety: at most 4 KiB, an eighth of a small limit. */
const APPEND_MARGIN = 4096;
/** What a staged event holds as data; its metadata names the parts. */
const STAGED_DATA = { $staged: true };
const STAGED_DATA_JSON = JSON.stringify(STAGED_DATA);
/** Staged streams written at once. */
const STAGING_CONCURRENCY = 16;
/** A stream-name filter no stream matches: a subscription with it sends checkpoints only. */
const NOTHING = '$$mds-heads-only$$';
/**
 * Pauses before the retries of an append whose outcome is unknown, and how long after the first such
 * failure a retry may still start: a request waits about a second more at most, not the client's deadline again.
 */
const RETRY_PAUSES_MS = [100, 400];
const RETRY_WINDOW_MS = 2_000;
/** The client's errors after which a sent append may or may not have been recorded. */
const OUTCOME_UNKNOWN = new Set(['unavailable', 'deadline-exceeded', 'timeout', 'cancelled', 'unknown']);

interface Staged {
  stream: string;
  parts: number;
  bytes: number;
  sha256: string;
}

/** An event on its way into an append: its data as JSON, the size the server counts, and whether its data goes ahead. */
interface Planned {
  id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  json: Buffer;
  size: number;
  staged?: Staged;
}

/** What EventStoreDB counts of an event against MaxAppendSize: data, metadata, and the type as UTF-16 (Event.SizeOnDisk). */
const countedSize = (type: string, data: Buffer | string, metadata: string) => Buffer.byteLength(data) + Buffer.byteLength(metadata) + type.length * 2;

function toNumber(value: bigint, what: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`${what} ${value} exceeds the safe integer range`);
  return n;
}

/** A log position as the server sent it; none when absent or -1 on the wire (2^64 − 1). */
function positionOf(commit: bigint | undefined): number | undefined {
  if (commit === undefined || commit >= 1n << 63n) return undefined;
  return toNumber(commit, 'commit position');
}

function toExpected(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return BigInt(expected);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What of a filter the server applies (one dimension, EventStoreDB allows no more); the rest is checked here. */
function serverFilter(filter: EventFilter | undefined) {
  if (filter?.types) return eventTypeFilter({ regex: `^(?:${filter.types.map(escape).join('|')})$` });
  if (filter?.streamPrefixes) return streamNameFilter({ prefixes: [...filter.streamPrefixes] });
  if (filter?.streams) return streamNameFilter({ regex: `^(?:${filter.streams.map(escape).join('|')})$` });
  return undefined;
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
 * The client's errors as the port's: unavailability and refused credentials are the caller's to answer
 * (503); an append the server found too large (EVENTSTORE_MAX_APPEND_SIZE saying more than the server's
 * MaxAppendSize) is the port's too-large append, with the server's limit.
 */
function portError(err: unknown, maxAppendSize = ESDB_DEFAULT_MAX_APPEND_SIZE): unknown {
  if (!(err instanceof Error) || !isCommandError(err)) return err;
  switch (err.type) {
    case 'maximum-append-size-exceeded': {
      const server = Number((err as { maxAppendSize?: unknown }).maxAppendSize);
      const limit = Number.isSafeInteger(server) && server > 0 ? server : maxAppendSize;
      return new EventStoreAppendTooLargeError(limit, `EventStoreDB refused an append larger than its maximum append size of ${limit} bytes (EVENTSTORE_MAX_APPEND_SIZE says ${maxAppendSize}; it must not say more than the server's MaxAppendSize)`);
    }
    case 'unavailable':
    case 'deadline-exceeded':
    case 'timeout':
    case 'not-leader':
    case 'cancelled':
      return new EventStoreUnavailableError(`EventStoreDB is unavailable (${err.type}): ${err.message}`, err);
    case 'access-denied':
      return new EventStoreAccessDeniedError(`EventStoreDB refused the service's credentials or permissions: ${err.message}`);
    default:
      return err;
  }
}

/** Whether an append that failed so may have been recorded all the same (its answer was lost). */
function outcomeUnknown(err: unknown): boolean {
  if (err instanceof EventStoreUnavailableError) return true; // a read after the append's success failed
  return err instanceof Error && isCommandError(err) && OUTCOME_UNKNOWN.has(err.type);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The user a connection string names (`esdb://user:password@host…`), if any. */
function connectionUser(connectionString: string): string | undefined {
  const user = /^esdb(?:\+discover)?:\/\/([^:@/?]+)(?::[^@/?]*)?@/i.exec(connectionString)?.[1];
  return user ? decodeURIComponent(user) : undefined;
}

/** The same uuid for the same (event, part): a retried staging is an idempotent append. */
function partId(eventId: string, part: number): string {
  const h = createHash('sha256').update(`${eventId}:${part}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The EventStore port on EventStoreDB (selected by EVENTSTORE_URL), through @eventstore/db-client.
 * Global positions are the server's commit positions: increasing, not dense. Filtered reads of `$all`
 * are filtered by the server (a filtered subscription read up to where it caught up). Appends larger
 * than the server's MaxAppendSize stay one atomic append: the large data goes first, in parts, to
 * streams of its own, and the events name it (README "EventStoreDB").
 */
export class EsdbEventStore implements EventStore {
  readonly kind = 'esdb' as const;
  private readonly client: EventStoreDBClient;
  private readonly upcasters: UpcasterRegistry;
  private readonly maxAppendSize: number;
  /** `$acl` of the staged streams: the service's user and admins only (none when no user is named). */
  private readonly stagedAcl?: { readRoles: string[]; writeRoles: string[]; deleteRoles: string[]; metaReadRoles: string[]; metaWriteRoles: string[] };
  private heads?: HeadWatcher;
  /** The highest log position this client was told of (answers, reads): committed before anything it sends next. */
  private seen = 0;
  /** The first event ids of appends whose outcome stayed unknown (the latest 1,000): a retry of one asks the log first. */
  private readonly unknown = new Set<string>();

  constructor(connectionString: string, options: { upcasters?: UpcasterRegistry; maxAppendSize?: number } = {}) {
    this.client = EventStoreDBClient.connectionString(connectionString);
    this.upcasters = options.upcasters ?? new UpcasterRegistry();
    this.maxAppendSize = options.maxAppendSize ?? ESDB_DEFAULT_MAX_APPEND_SIZE;
    // Without a user (an insecure server, where ACLs are not enforced) an ACL could only lock the service out.
    const user = connectionUser(connectionString);
    if (user) {
      const roles = [...new Set([user, '$admins'])];
      this.stagedAcl = { readRoles: roles, writeRoles: roles, deleteRoles: roles, metaReadRoles: roles, metaWriteRoles: roles };
    }
  }

  async append(stream: string, events: NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    validateStreamName(stream);
    const expected = options.expectedRevision ?? 'any';
    const planned = this.plan(stream, prepareEvents(events));
    const ids = planned.map((p) => p.id);
    const again = this.unknown.has(ids[0]);
    if (again) {
      // An earlier append of these events may have been recorded: as unknown as before if the log cannot say.
      const stored = await this.storedAlready(stream, expected, ids).catch((err: unknown) => {
        throw err instanceof EventStoreUnavailableError ? new EventStoreUnavailableError(err.message, err, { outcomeUnknown: true }) : err;
      });
      this.unknown.delete(ids[0]);
      if (stored) return stored;
    }
    // The staged data goes first; one append of the events naming it then commits them all at once.
    // Part ids derive from their event's, so a retry of the same events re-stages idempotently.
    const staged = planned.filter((p) => p.staged);
    for (let i = 0; i < staged.length; i += STAGING_CONCURRENCY) {
      await Promise.all(staged.slice(i, i + STAGING_CONCURRENCY).map((p) => this.stage(p.id, p.staged!, p.json)));
    }
    const proposed = planned.map((p) =>
      p.staged
        ? jsonEvent({ id: p.id, type: p.type, data: STAGED_DATA as never, metadata: { ...p.metadata, $staged: p.staged } })
        : jsonEvent({ id: p.id, type: p.type, data: p.data as never, metadata: p.metadata }),
    );
    let lost: unknown; // the failure of an attempt that may have been recorded
    let lostAt = 0;
    for (let attempt = 0; attempt <= RETRY_PAUSES_MS.length; attempt++) {
      if (lost !== undefined) {
        if (Date.now() - lostAt > RETRY_WINDOW_MS) break;
        await sleep(RETRY_PAUSES_MS[attempt - 1]);
        // The log's idempotence decides, asked before appending again: the same ids all there are
        // this append, recorded (whether the server would answer it with a position or not).
        let stored: AppendResult | undefined;
        try {
          stored = await this.storedAlready(stream, expected, ids);
        } catch (err) {
          if (err instanceof IdempotencyConflictError) throw err;
          continue; // the log is still away
        }
        if (stored) return stored;
      }
      try {
        return await this.appendEvents(stream, proposed, expected);
      } catch (err) {
        if (outcomeUnknown(err)) {
          if (lost === undefined) lostAt = Date.now();
          lost = err;
          continue;
        }
        // After a lost attempt only a conflict at the expected revision says the events are not in the log.
        if (lost !== undefined && (err as { type?: string }).type !== 'wrong-expected-version') break;
        const refused = await this.refusal(stream, expected, ids, err);
        // Parts of an append refused outright, not after an unknown outcome, that no stored event names:
        // this append's own (a retry of stored events is a duplicate or a conflict), so nothing reads them.
        if (lost === undefined && !again && refused instanceof WrongExpectedRevisionError) await this.discard(staged.map((p) => p.staged!.stream));
        throw refused;
      }
    }
    this.unknown.add(ids[0]);
    if (this.unknown.size > 1000) this.unknown.delete(this.unknown.values().next().value!);
    throw new EventStoreUnavailableError(
      `EventStoreDB did not answer an append to ${stream} (${(lost as { type?: string }).type ?? 'unavailable'}), nor a check afterwards: the outcome is unknown, the events may have been recorded; a retry with the same event ids is safe`,
      lost,
      { outcomeUnknown: true },
    );
  }

  /**
   * One append of the events. Servers before 21.x answer an idempotent one (all these ids stored where
   * they would go) without a position: the stored one is read. Later servers answer with the original
   * position, which is a duplicate when it is no later than a position seen before sending (a new
   * event goes after everything committed then); one never seen passes for new, its position right.
   */
  private async appendEvents(stream: string, proposed: ReturnType<typeof jsonEvent>[], expected: ExpectedRevision): Promise<AppendResult> {
    const seenBefore = this.seen;
    const result = await this.client.appendToStream(stream, proposed, { expectedRevision: toExpected(expected) });
    const nextRevision = toNumber(result.nextExpectedRevision, 'revision');
    const position = positionOf(result.position?.commit);
    if (position !== undefined) return { nextRevision, position: this.saw(position), duplicate: position <= seenBefore };
    const [last] = await this.readStream(stream, { fromRevision: nextRevision, limit: 1, withDataOf: [] });
    return { nextRevision, position: last?.position ?? 0, duplicate: true };
  }

  private saw(position: number): number {
    if (position > this.seen) this.seen = position;
    return position;
  }

  /**
   * An append of `ids` found in the stream where it would be (from the expected revision; among the
   * last events for `any`): all there, in order → a duplicate at their position; none → undefined;
   * some → IdempotencyConflictError, as the server would answer.
   */
  private async storedAlready(stream: string, expected: ExpectedRevision, ids: string[]): Promise<AppendResult | undefined> {
    const at = expected === 'no_stream' ? 0 : typeof expected === 'number' ? expected + 1 : undefined;
    // With `any` others may have appended since: a little more than the append is looked at.
    const read =
      at !== undefined
        ? await this.readStream(stream, { fromRevision: at, limit: ids.length, withDataOf: [] })
        : (await this.readStream(stream, { direction: 'backwards', limit: ids.length + 100, withDataOf: [] })).reverse();
    const first = read.findIndex((e) => e.id === ids[0]);
    const ours = first < 0 ? [] : read.slice(first, first + ids.length);
    if (ours.length === ids.length && ours.every((e, i) => e.id === ids[i])) {
      const last = ours[ours.length - 1];
      return { nextRevision: last.revision, position: last.position, duplicate: true };
    }
    const wanted = new Set(ids);
    if (read.some((e) => wanted.has(e.id))) throw new IdempotencyConflictError(stream, 'some event ids are already stored');
    return undefined;
  }

  /** What a refused append is in the port's terms. */
  private async refusal(stream: string, expected: ExpectedRevision, ids: string[], err: unknown): Promise<unknown> {
    if ((err as { type?: string }).type !== 'wrong-expected-version') return portError(err, this.maxAppendSize);
    const actualVersion = (err as { actualVersion?: bigint | string }).actualVersion;
    const actual = typeof actualVersion === 'bigint' ? toNumber(actualVersion, 'revision') : 'no_stream';
    // The server refuses an append repeating only some stored ids as a wrong expected version.
    const stored = await this.readStream(stream, { direction: 'backwards', limit: ids.length, withDataOf: [] }).catch(() => []);
    if (stored.some((s) => ids.includes(s.id))) return new IdempotencyConflictError(stream, 'some event ids are already stored');
    return new WrongExpectedRevisionError(stream, expected, actual);
  }

  /** Tombstones staged streams nothing will name (best effort: an unnamed part is never read anyway). */
  private async discard(streams: string[]): Promise<void> {
    await Promise.allSettled(streams.map((s) => this.client.tombstoneStream(s)));
  }

  /** The most an append may count here, below the server's MaxAppendSize; also the size of a staged part. */
  private get appendLimit(): number {
    return this.maxAppendSize - Math.min(APPEND_MARGIN, Math.floor(this.maxAppendSize / 8));
  }

  /**
   * Which events' data goes ahead of the append: none when the events fit in one append as they are;
   * else the largest data first, until the append fits, however small each event is (an import of
   * many small chunks as much as one of a few large ones). A staged event still counts its type, its
   * metadata and what names its parts (about 180 bytes), so events smaller than that gain nothing by
   * it; when the append cannot fit even with every event that gains staged, nothing is written and the
   * append is refused as too large.
   */
  private plan(stream: string, prepared: ReturnType<typeof prepareEvents>): Planned[] {
    const limit = this.appendLimit;
    const planned: Planned[] = prepared.map((e) => {
      const json = Buffer.from(JSON.stringify(e.data));
      return { ...e, json, size: countedSize(e.type, json, JSON.stringify(e.metadata)) };
    });
    let total = planned.reduce((n, p) => n + p.size, 0);
    if (total <= limit) return planned;
    let stagedCount = 0;
    for (const p of [...planned].sort((a, b) => b.json.length - a.json.length)) {
      if (total <= limit) break;
      const staged: Staged = { stream: `${STAGED_PREFIX}${p.id}`, parts: Math.ceil(p.json.length / limit), bytes: p.json.length, sha256: createHash('sha256').update(p.json).digest('hex') };
      const size = countedSize(p.type, STAGED_DATA_JSON, JSON.stringify({ ...p.metadata, $staged: staged }));
      if (size >= p.size) continue;
      p.staged = staged;
      total += size - p.size;
      stagedCount++;
    }
    if (total > limit) {
      throw new EventStoreAppendTooLargeError(
        this.maxAppendSize,
        `an append of ${planned.length} events to ${stream} counts ${total} bytes with the data of ${stagedCount} of them staged, more than EventStoreDB's maximum append size of ${this.maxAppendSize} bytes allows (${limit} with the margin)`,
      );
    }
    return planned;
  }

  /**
   * Writes an event's data as the parts `staged` names (each at most the append limit) to a stream of
   * its own, after the stream's `$acl` when the service connects as a user.
   */
  private async stage(eventId: string, staged: Staged, data: Buffer): Promise<void> {
    const limit = this.appendLimit;
    if (this.stagedAcl) {
      // Set once, when the stream is new; a retry finds it set.
      await this.retried(() => this.client.setStreamMetadata(staged.stream, { acl: this.stagedAcl }, { expectedRevision: NO_STREAM })).catch((err) => {
        if ((err as { type?: string }).type !== 'wrong-expected-version') throw portError(err, this.maxAppendSize);
      });
    }
    for (let i = 0; i < staged.parts; i++) {
      const part = binaryEvent({ id: partId(eventId, i), type: STAGED_PART, data: data.subarray(i * limit, (i + 1) * limit) });
      // A part stored already (a retry, or a lost answer) is answered as an idempotent success.
      await this.retried(() => this.client.appendToStream(staged.stream, part, { expectedRevision: i === 0 ? ANY : BigInt(i - 1) })).catch((err) => {
        throw portError(err, this.maxAppendSize);
      });
    }
  }

  /** `call` again after a failure whose outcome is unknown, for a call that is idempotent (a staged part). */
  private async retried<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (!outcomeUnknown(err) || attempt >= RETRY_PAUSES_MS.length) throw err;
        await sleep(RETRY_PAUSES_MS[attempt]);
      }
    }
  }

  /** The data an event staged, read back and checked. */
  private async unstage(staged: Staged, eventId: string): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const resolved of this.client.readStream(staged.stream, { fromRevision: START, maxCount: staged.parts })) {
      if (resolved.event && !resolved.event.isJson) chunks.push(Buffer.from(resolved.event.data as Uint8Array));
    }
    const data = Buffer.concat(chunks);
    if (data.length !== staged.bytes || createHash('sha256').update(data).digest('hex') !== staged.sha256) {
      throw new Error(`the staged data of event ${eventId} in ${staged.stream} is incomplete or changed`);
    }
    return JSON.parse(data.toString('utf8'));
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
      throw portError(err);
    }
    await this.locate(out.filter((e) => e.position < 0));
    for (const e of out) this.saw(e.position);
    return this.resolved(out, options.withDataOf);
  }

  async readAll(options: ReadAllOptions = {}): Promise<ReadAllPage> {
    const after = options.after ?? 0;
    const limit = options.limit ?? 1000;
    const server = serverFilter(options.filter);
    try {
      const page = server ? await this.readFiltered(after, limit, options.filter!, server) : await this.readUnfiltered(after, limit, options.filter);
      for (const e of page.events) this.saw(e.position);
      return { ...page, events: await this.resolved(page.events, options.withDataOf) };
    } catch (err) {
      throw portError(err);
    }
  }

  /**
   * A page of `$all` read as it is, a filter the server cannot apply (time, actor) checked here: read
   * on until `limit` events matched or the log ends, as a filtered read on PostgreSQL does, so a short
   * page means the end of the log and not "nothing matched in the first `limit`".
   */
  private async readUnfiltered(after: number, limit: number, filter: EventFilter | undefined): Promise<ReadAllPage> {
    const events: RecordedEvent[] = [];
    let position = after;
    // Only a time or an actor is checked here (the rest goes to readFiltered): an empty filter, as the
    // audit log sends without parameters, is a plain page.
    const local = filter?.since !== undefined || filter?.until !== undefined || filter?.actor !== undefined;
    for (;;) {
      const want = local ? Math.max(limit, 500) : limit + 1;
      let got = 0;
      // A read from a position includes the event there: the page starts after it.
      const read = this.client.readAll({ fromPosition: position > 0 ? { commit: BigInt(position), prepare: BigInt(position) } : START, direction: FORWARDS, maxCount: want });
      for await (const resolved of read) {
        got++;
        const at = positionOf(resolved.event?.position?.commit ?? resolved.commitPosition);
        if (at === undefined || at <= position || events.length >= limit) continue; // read to its end: a read left early keeps its call open
        position = at;
        const recorded = this.toRecorded(resolved);
        if (recorded && matches(filter, recorded)) events.push(recorded);
      }
      if (events.length >= limit || got < want) return { events, position };
    }
  }

  /**
   * A filtered page: a filtered subscription from `after`, read until `limit` events or until it has
   * caught up. How far it looked is the last event's position when the page is full, else the head
   * read before it (every event up to there came before caught_up), so a reader skips the range next time.
   */
  private async readFiltered(after: number, limit: number, filter: EventFilter, server: NonNullable<ReturnType<typeof serverFilter>>): Promise<ReadAllPage> {
    const head = await this.headPosition();
    if (head <= after) return { events: [], position: after };
    const events: RecordedEvent[] = [];
    let lastDelivered = after;
    const subscription = this.client.subscribeToAll({ fromPosition: after > 0 ? { commit: BigInt(after), prepare: BigInt(after) } : START, filter: server });
    await new Promise<void>((resolve, reject) => {
      let done = false;
      const finish = () => {
        if (done) return;
        // Events the server sent before caught_up may still wait in the stream's buffer: take them first.
        if (subscription.readableLength > 0) return void setImmediate(finish);
        done = true;
        void subscription.unsubscribe().then(resolve, () => resolve());
      };
      subscription.on('data', (resolved: AllStreamResolvedEvent) => {
        if (done || events.length >= limit) return;
        const at = positionOf(resolved.event?.position?.commit ?? resolved.commitPosition);
        if (at === undefined || at <= after) return;
        lastDelivered = at;
        const recorded = this.toRecorded(resolved);
        if (recorded && matches(filter, recorded)) events.push(recorded);
        if (events.length >= limit) finish();
      });
      subscription.on('caughtUp', () => setImmediate(finish));
      subscription.on('error', (err) => {
        if (!done) {
          done = true;
          reject(err);
        }
      });
    });
    return { events, position: events.length >= limit ? lastDelivered : Math.max(lastDelivered, head) };
  }

  subscribe(options: SubscribeOptions = {}): EventSubscription {
    return catchUpSubscription(this, options, 500);
  }

  async headPosition(): Promise<number> {
    try {
      let head = 0;
      for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 })) {
        head = positionOf(resolved.event?.position?.commit ?? resolved.commitPosition) ?? head;
      }
      return this.saw(head);
    } catch (err) {
      throw portError(err);
    }
  }

  /** Waits on one shared live subscription that only reports how far the log has gone. */
  async waitForAppend(position: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    this.heads ??= new HeadWatcher(this.client, () => this.headPosition());
    await this.heads.wait(position, timeoutMs, signal);
  }

  async ping(): Promise<void> {
    await this.headPosition();
  }

  async close(): Promise<void> {
    await this.heads?.close();
    await this.client.dispose();
  }

  /** Finds the log positions of events a stream read gave without one (some server versions do). */
  private async locate(events: RecordedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const wanted = new Map(events.map((e) => [e.id, e]));
    // Looked for from the end: what readers ask positions of (a stream's last events) is recent.
    let from: typeof END | { commit: bigint; prepare: bigint } = END;
    while (wanted.size > 0) {
      let last: { commit: bigint; prepare: bigint } | undefined;
      for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: 1000 })) {
        const e = resolved.event;
        if (!e?.position) continue;
        last = e.position;
        const found = wanted.get(e.id);
        if (found && e.streamId === found.stream) {
          found.position = toNumber(e.position.commit, 'commit position');
          wanted.delete(e.id);
        }
      }
      if (!last) break;
      from = last;
    }
    for (const e of wanted.values()) throw new Error(`event ${e.id} of ${e.stream} is not in $all`);
  }

  /** Events with staged data read back, where their data is wanted. */
  private async resolved(events: RecordedEvent[], withDataOf: readonly string[] | undefined): Promise<RecordedEvent[]> {
    const staged = events.filter((e) => (e.metadata as { $staged?: unknown }).$staged);
    if (staged.length === 0) return events;
    const out = new Map<RecordedEvent, RecordedEvent>();
    for (let i = 0; i < staged.length; i += 8) {
      await Promise.all(
        staged.slice(i, i + 8).map(async (e) => {
          const { $staged, ...metadata } = e.metadata as EventMetadata & { $staged: Staged };
          const wanted = !withDataOf || withDataOf.includes(e.type);
          const data = wanted ? await this.unstage($staged, e.id) : null;
          const event = { ...e, data, metadata: metadata as EventMetadata };
          out.set(e, wanted ? this.upcasters.apply(event) : event);
        }),
      );
    }
    return events.map((e) => out.get(e) ?? e);
  }

  private toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
    const e = resolved.event;
    if (!e || e.type.startsWith('$') || e.streamId.startsWith('$') || e.streamId.startsWith(STAGED_PREFIX) || !e.isJson) return undefined;
    const metadata = (e.metadata ?? {}) as EventMetadata;
    const recorded: RecordedEvent = {
      id: e.id,
      stream: e.streamId,
      revision: toNumber(e.revision, 'revision'),
      position: positionOf(e.position?.commit) ?? -1,
      type: e.type,
      data: e.data,
      metadata: { ...metadata, schema: metadata.schema ?? 1 },
      createdAt: e.created.toISOString(),
    };
    // Staged data is read back (and upcast) by `resolved`.
    return (metadata as { $staged?: unknown }).$staged ? recorded : this.upcasters.apply(recorded);
  }
}

/**
 * How far the log has gone, from one live subscription whose filter no stream matches: the server
 * sends no events, only a checkpoint after each event it looks at. Waiters wake when the head passes
 * their position; when the subscription drops they wake at their timeout and it is opened again.
 */
class HeadWatcher {
  private head = 0;
  private readonly waiters = new Set<{ position: number; wake: () => void }>();
  private subscription?: { unsubscribe(): Promise<void> };
  private closed = false;

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly readHead: () => Promise<number>,
  ) {
    void this.open();
  }

  private async open(): Promise<void> {
    if (this.closed) return;
    try {
      const head = await this.readHead();
      this.moved(head);
      // From the head just read, so nothing appended meanwhile goes unseen.
      const s = this.client.subscribeToAll({
        fromPosition: head > 0 ? { commit: BigInt(head), prepare: BigInt(head) } : START,
        filter: streamNameFilter({ prefixes: [NOTHING], maxSearchWindow: 1, checkpointInterval: 1, checkpointReached: (_s: unknown, p: { commit: bigint }) => this.moved(positionOf(p.commit) ?? 0) }),
      });
      this.subscription = s;
      const reopen = () => {
        if (this.subscription !== s) return;
        this.subscription = undefined;
        setTimeout(() => void this.open(), 500).unref();
      };
      s.on('error', reopen);
      s.on('end', reopen);
      s.on('close', reopen);
      s.resume();
    } catch {
      setTimeout(() => void this.open(), 500).unref();
    }
  }

  private moved(position: number): void {
    if (position <= this.head) return;
    this.head = position;
    for (const w of this.waiters) if (this.head > w.position) w.wake();
  }

  wait(position: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.head > position || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = { position, wake: () => done() };
      const timer = setTimeout(() => done(), timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      signal?.addEventListener('abort', done, { once: true });
      this.waiters.add(waiter);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const s = this.subscription;
    this.subscription = undefined;
    await s?.unsubscribe().catch(() => undefined);
    for (const w of this.waiters) w.wake();
  }
}
