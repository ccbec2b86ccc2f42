/** Injection token for the EventStore port; apps and contexts depend on this, never on an adapter. */
export const EVENT_STORE = Symbol('EVENT_STORE');

/** Metadata every recorded event carries. `schema` is the version of `data`'s shape for its type. */
export interface EventMetadata {
  /** Who sent it: `users/<id>` or `integrations/<id>` (or a part of the service, e.g. `outlet-worker`). */
  actor?: string;
  /** The access token the request was authenticated with, when it came over HTTP with one. */
  token_id?: string;
  request_id?: string;
  run_id?: string;
  schema: number;
  timestamp: string;
  [key: string]: unknown;
}

export interface NewEvent<Data = unknown> {
  /** Client-assigned UUID: appending an event id that is already stored is an idempotent retry. */
  id?: string;
  type: string;
  data: Data;
  metadata?: Partial<EventMetadata>;
}

export interface RecordedEvent<Data = unknown> {
  id: string;
  stream: string;
  /** Position in its stream, from 0. */
  revision: number;
  /** Position in the whole log, from 1, increasing in commit order. */
  position: number;
  type: string;
  data: Data;
  metadata: EventMetadata;
  createdAt: string;
  /** The data as stored, in JSON text, when it was read with `rawDataOf` (`data` is then null). */
  rawData?: string;
  /**
   * The table holding the data, when it was read with `inLogOf` and left there (`data` is then
   * null): SQL in the same database reads it as `data` of the row with this event's `position`.
   */
  dataInTable?: string;
}

/** `no_stream`: the stream must not exist; `stream_exists`: it must; a number: its last revision; `any`: no check. */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number;

export interface AppendOptions {
  expectedRevision?: ExpectedRevision;
}

export interface AppendResult {
  /** Revision of the stream's last event after the append. */
  nextRevision: number;
  /** Log position of the last appended event (use it to wait for projections). */
  position: number;
  /** True when every event id was already stored: a retry, nothing new was appended. */
  duplicate: boolean;
}

export interface EventFilter {
  types?: string[];
  /** Stream names starting with any of these (e.g. `import-`, `datatarget-42`). */
  streamPrefixes?: string[];
  /** These streams exactly. */
  streams?: string[];
  /** Appended at or after / before this time (ISO 8601). */
  since?: string;
  until?: string;
  /** Sent by this actor (`metadata.actor`). */
  actor?: string;
}

export interface ReadAllOptions {
  /** Read events with a position greater than this (0 = from the start). */
  after?: number;
  limit?: number;
  filter?: EventFilter;
  /**
   * Only events of these types need their data; the store may give the others `data: null` (the
   * Postgres adapter does, sparing large import chunks to readers that only count or route them).
   */
  withDataOf?: readonly string[];
  /**
   * Events of these types may come with their data as the stored JSON text (`rawData`, and `data:
   * null`), for readers that hand it to SQL as it is instead of parsing and serialising it again. An
   * adapter that cannot, or a type with upcasters, gives the data parsed as usual.
   */
  rawDataOf?: readonly string[];
  /**
   * Events of these types may come without their data, left in the log (`dataInTable`), for readers
   * whose SQL runs in the log's database and reads it there by position: no copy leaves PostgreSQL.
   * An adapter whose log is elsewhere, or a type with upcasters, reads them as `rawDataOf` would.
   */
  inLogOf?: readonly string[];
  /**
   * The page's personalEpoch read by the same statement (PersonalDataEventStore asks it of a log in
   * its own PostgreSQL, sparing a round trip a page); an adapter that cannot leaves it unset.
   */
  withPersonalEpoch?: boolean;
}

export interface ReadAllPage {
  events: RecordedEvent[];
  /**
   * How far the read looked: a reader may store this as its checkpoint even when a filter left
   * `events` empty, so it does not scan the same range again.
   */
  position: number;
  /**
   * Set when the page holds events whose personal fields are kept apart (PersonalDataEventStore): the
   * erasure epoch read before the page was. A projection commits what it built from the page only if
   * no forgetting rewrote those fields meanwhile (mds_personal_epoch_unchanged); otherwise it reads the
   * page again.
   */
  personalEpoch?: number;
}

export interface ReadStreamOptions {
  fromRevision?: number;
  limit?: number;
  direction?: 'forwards' | 'backwards';
  /** As in ReadAllOptions: only these types need their data (`[]`: none, for a reader after ids). */
  withDataOf?: readonly string[];
  /**
   * The events' data as the log holds it, without what is kept apart (PersonalDataEventStore): for a
   * reader after a stream's state (appendDecided), not its payloads, such as a post's 10,000 messages.
   */
  keptOnly?: boolean;
}

export interface SubscribeOptions {
  after?: number;
  filter?: EventFilter;
  batchSize?: number;
}

/** A catch-up subscription: pages of events in position order, then new ones as they commit. */
export interface EventSubscription extends AsyncIterable<ReadAllPage> {
  close(): Promise<void>;
}

export interface EventStore {
  readonly kind: 'postgres' | 'esdb';
  append(stream: string, events: NewEvent[], options?: AppendOptions): Promise<AppendResult>;
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<ReadAllPage>;
  subscribe(options?: SubscribeOptions): EventSubscription;
  /** Position of the last committed event (0 when the log is empty). */
  headPosition(): Promise<number>;
  /** Resolves when an event past `position` may have been committed, or after `timeoutMs`. */
  waitForAppend(position: number, timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /**
   * For a reader that takes only events of `types`, caught up at `position`: resolves when appends
   * it must read may have been committed (`read: true`), or after `timeoutMs` (`read: false`). Either
   * way `skipTo` is as far as the reader may move without reading: every event in between is known
   * to be of another type (the wait also ends when that moves). Optional: readers without it wait with waitForAppend and read.
   */
  waitForTypes?(position: number, types: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<{ skipTo: number; read: boolean }>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
