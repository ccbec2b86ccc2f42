import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import type { Pool, PoolClient } from 'pg';
import { catchUpSubscription } from '../catch-up';
import { IdempotencyConflictError, InvalidAppendError, WrongExpectedRevisionError } from '../event-store.errors';
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
import { UpcasterRegistry } from '../upcasters';

/** Folder of the event log's SQL migrations, for the platform's migration runner. */
export const POSTGRES_EVENT_STORE_MIGRATIONS = { component: 'event-store', dir: path.join(__dirname, 'migrations') };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An append's announcement: positions first..last, the event types in it (null: not told). */
interface Announcement {
  first: number;
  last: number;
  types: Set<string> | null;
}

const MAX_ANNOUNCEMENTS = 2000;

function parseAnnouncement(payload: string): Announcement {
  const i = payload.indexOf(':');
  const j = i < 0 ? -1 : payload.indexOf(':', i + 1);
  if (j < 0) return { last: Number(i < 0 ? payload : payload.slice(0, i)), first: Number.NaN, types: null };
  const types = payload.slice(j + 1);
  return { last: Number(payload.slice(0, i)), first: Number(payload.slice(i + 1, j)), types: types === '*' ? null : new Set(types.split(',')) };
}

export interface AppendListener {
  on(event: 'mds_events' | 'reconnected', listener: (payload: string) => void): unknown;
  off(event: 'mds_events' | 'reconnected', listener: (payload: string) => void): unknown;
}

export interface PostgresEventStoreOptions {
  upcasters?: UpcasterRegistry;
  /**
   * Append batches in flight at once. Appends that arrive while batches are in flight are grouped
   * into the next one, so concurrent appends share a transaction and one WAL flush.
   */
  maxInFlight?: number;
  /** Largest batch, in appends and in bytes of event JSON (a single larger append goes alone). */
  maxBatchAppends?: number;
  maxBatchBytes?: number;
  /** Source of `mds_events` notifications (a PgNotifications listening on that channel); without it readers poll. */
  notifications?: AppendListener;
}

interface EventRow {
  position: number;
  stream: string;
  revision: number;
  id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  created_at: string;
  raw_data?: string | null;
  in_log?: boolean | null;
}

const COLUMNS = `position, stream, revision, id, type, data, metadata, to_json(created_at)#>>'{}' AS created_at`;

function expectedCode(expected: ExpectedRevision): number {
  switch (expected) {
    case 'any':
      return -1;
    case 'no_stream':
      return -2;
    case 'stream_exists':
      return -3;
    default:
      if (!Number.isSafeInteger(expected) || expected < 0) throw new InvalidAppendError(`expected revision must be a revision >= 0, got ${expected}`);
      return expected;
  }
}

function likePrefix(prefix: string): string {
  return prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
}

export function validateStreamName(stream: string): void {
  if (typeof stream !== 'string' || stream.length === 0 || stream.length > 500 || stream.startsWith('$')) {
    throw new InvalidAppendError(`invalid stream name "${stream}"`);
  }
}

export function prepareEvents(events: NewEvent[], now = new Date().toISOString()) {
  if (!Array.isArray(events) || events.length === 0) throw new InvalidAppendError('an append needs at least one event');
  return events.map((e) => {
    if (!e.type || typeof e.type !== 'string') throw new InvalidAppendError('every event needs a type');
    const id = e.id ?? randomUUID();
    if (!UUID.test(id)) throw new InvalidAppendError(`event id must be a UUID, got "${id}"`);
    const metadata: EventMetadata = { ...e.metadata, schema: e.metadata?.schema ?? 1, timestamp: e.metadata?.timestamp ?? now };
    return { id: id.toLowerCase(), type: e.type, data: e.data ?? null, metadata };
  });
}

interface BatchRow {
  idx: number;
  status: 'ok' | 'duplicate' | 'wrong_expected_revision' | 'idempotency_conflict';
  next_revision: number | null;
  last_position: number | null;
  detail: string | null;
}

interface PendingAppend {
  stream: string;
  expectedRevision: ExpectedRevision;
  /** This append as the JSON element `mds_append_batch` reads. */
  json: string;
  /** Its events' personal-data lists (a JSON array, see appendWithLists), written only if it records them. */
  lists?: string;
  resolve(result: AppendResult): void;
  reject(err: unknown): void;
}

/** Validates one append and renders it as an element of `mds_append_batch`'s argument. */
function appendJson(stream: string, events: NewEvent[], expected: ExpectedRevision): string {
  validateStreamName(stream);
  const prepared = prepareEvents(events);
  return `{"stream":${JSON.stringify(stream)},"expected":${expectedCode(expected)},"events":${JSON.stringify(prepared)}}`;
}

function settle(row: BatchRow, stream: string, expected: ExpectedRevision): AppendResult {
  switch (row.status) {
    case 'ok':
    case 'duplicate':
      return { nextRevision: row.next_revision!, position: row.last_position!, duplicate: row.status === 'duplicate' };
    case 'wrong_expected_revision': {
      const actual = Number(row.detail);
      throw new WrongExpectedRevisionError(stream, expected, actual < 0 ? 'no_stream' : actual);
    }
    case 'idempotency_conflict':
      throw new IdempotencyConflictError(stream, row.detail ?? 'some event ids are already stored');
  }
}

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  private readonly upcasters: UpcasterRegistry;
  private readonly queue: PendingAppend[] = [];
  private inFlight = 0;

  constructor(
    private readonly pool: Pool,
    private readonly options: PostgresEventStoreOptions = {},
  ) {
    this.upcasters = options.upcasters ?? new UpcasterRegistry();
    // Every append announces "<head>:<first>:<types>". The highest head so far lets a waiter return
    // at once when an append it has not read was announced before it began waiting; the recent
    // announcements let a reader skip ranges with none of its types (waitForTypes).
    options.notifications?.on('mds_events', (payload) => {
      const announced = parseAnnouncement(payload);
      if (announced.last > this.announcedHead) this.announcedHead = announced.last;
      this.announcements.push(announced);
      if (this.announcements.length > MAX_ANNOUNCEMENTS) this.announcements.splice(0, this.announcements.length - MAX_ANNOUNCEMENTS / 2);
    });
    options.notifications?.on('reconnected', () => {
      // Announcements sent while the connection was down are lost: every waiter reads again.
      this.announcements = [];
      this.announcedHead = Number.MAX_SAFE_INTEGER;
      setImmediate(() => (this.announcedHead = 0));
    });
  }

  private announcedHead = 0;
  private announcements: Announcement[] = [];

  /** How far a reader of `types` at `position` may move on the announcements alone, and whether it must read. */
  private skipFrom(position: number, types: readonly string[]): { skipTo: number; read: boolean } {
    let at = position;
    for (const a of this.announcements) {
      if (a.last <= at) continue;
      // A range that does not start right after `at` (a gap in what was heard), or with a type the reader takes.
      if (a.first !== at + 1 || a.types === null || types.some((t) => a.types!.has(t))) return { skipTo: at, read: true };
      at = a.last;
    }
    return { skipTo: at, read: this.announcedHead > at };
  }

  append(stream: string, events: NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    return this.appendWithLists(stream, events, options);
  }

  /**
   * An append with the personal-data lists of its events (`[{id, type, whole, records, salt}]` as JSON,
   * see PersonalDataEventStore), inserted into mds_personal_data by the same statement, so in the same
   * transaction, when the append records the events: a list is there exactly when its event is, with
   * no commit or round trip of its own. A duplicate append's events keep the lists they came with.
   */
  appendWithLists(stream: string, events: NewEvent[], options: AppendOptions = {}, lists?: string): Promise<AppendResult> {
    const expectedRevision = options.expectedRevision ?? 'any';
    let json: string;
    try {
      json = appendJson(stream, events, expectedRevision);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<AppendResult>((resolve, reject) => {
      this.queue.push({ stream, expectedRevision, json, lists, resolve, reject });
      this.pump();
    });
  }

  /**
   * Appends inside a transaction the caller owns (visible when the caller commits). The log's head
   * lock is held from this call until that commit, so keep the rest of the transaction short.
   */
  async appendWithin(db: Pool | PoolClient, stream: string, events: NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    const expected = options.expectedRevision ?? 'any';
    const rows = await this.runBatch(db, [{ json: appendJson(stream, events, expected) }]);
    return settle(rows[0], stream, expected);
  }

  private pump(): void {
    const maxInFlight = this.options.maxInFlight ?? 2;
    const maxAppends = this.options.maxBatchAppends ?? 500;
    const maxBytes = this.options.maxBatchBytes ?? 8 * 1024 * 1024;
    while (this.inFlight < maxInFlight && this.queue.length > 0) {
      const batch = [this.queue.shift()!];
      let bytes = batch[0].json.length;
      while (this.queue.length > 0 && batch.length < maxAppends && bytes + this.queue[0].json.length <= maxBytes) {
        bytes += this.queue[0].json.length;
        batch.push(this.queue.shift()!);
      }
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async flush(batch: PendingAppend[]): Promise<void> {
    let rows: BatchRow[];
    try {
      rows = await this.runBatch(this.pool, batch);
    } catch (err) {
      if (batch.length === 1) {
        batch[0].reject(err);
        return;
      }
      // One bad append must not fail the others: retry each on its own.
      for (const p of batch) {
        try {
          const [row] = await this.runBatch(this.pool, [p]);
          p.resolve(settle(row, p.stream, p.expectedRevision));
        } catch (e) {
          p.reject(e);
        }
      }
      return;
    }
    batch.forEach((p, i) => {
      try {
        p.resolve(settle(rows[i], p.stream, p.expectedRevision));
      } catch (err) {
        p.reject(err);
      }
    });
  }

  private async runBatch(db: Pool | PoolClient, appends: Array<Pick<PendingAppend, 'json' | 'lists'>>): Promise<BatchRow[]> {
    const json = `[${appends.map((a) => a.json).join(',')}]`;
    if (!appends.some((a) => a.lists)) {
      const { rows } = await db.query<BatchRow>('SELECT idx, status, next_revision, last_position, detail FROM mds_append_batch($1::jsonb) ORDER BY idx', [json]);
      return rows;
    }
    // Each append's lists tagged with its place in the batch (mds_append_batch's idx, from 0).
    const lists = `[${appends.flatMap((a, idx) => (a.lists ? [`{"idx":${idx},"lists":${a.lists}}`] : [])).join(',')}]`;
    const { rows } = await db.query<BatchRow>(
      `WITH b AS (SELECT idx, status, next_revision, last_position, detail FROM mds_append_batch($1::jsonb)),
            l AS (INSERT INTO mds_personal_data (event_id, type, whole, records, salt)
                  SELECT x.id, x.type, x.whole, x.records, x.salt
                    FROM jsonb_to_recordset($2::jsonb) AS a(idx int, lists jsonb)
                    JOIN b ON b.idx = a.idx AND b.status = 'ok'
                    CROSS JOIN LATERAL jsonb_to_recordset(a.lists) AS x(id uuid, type text, whole text, records jsonb, salt text)
                  ON CONFLICT (event_id) DO NOTHING)
       SELECT * FROM b ORDER BY idx`,
      [json, lists],
    );
    return rows;
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? Number.MAX_SAFE_INTEGER : 0);
    // withDataOf: other types' data is not sent (a reader after positions or ids, not a chunk's records).
    const columns = options.withDataOf ? COLUMNS.replace(', data,', ', CASE WHEN type = ANY($4::text[]) THEN data END AS data,') : COLUMNS;
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${columns} FROM mds_events
        WHERE stream = $1 AND revision ${backwards ? '<=' : '>='} $2
        ORDER BY revision ${backwards ? 'DESC' : 'ASC'} LIMIT $3`,
      options.withDataOf ? [stream, from, options.limit ?? null, options.withDataOf] : [stream, from, options.limit ?? null],
    );
    return rows.map((r) => this.toRecorded(r));
  }

  async readAll(options: ReadAllOptions = {}): Promise<ReadAllPage> {
    const after = options.after ?? 0;
    const limit = options.limit ?? 1000;
    const { where, params } = this.filterSql(options.filter, 3);
    // data: parsed (all, or only withDataOf's types); for types without upcasters, left in the table
    // (inLogOf: in_log) or as text in raw_data (rawDataOf).
    const plain = (types: readonly string[] | undefined) => types?.filter((t) => !this.upcasters.handles(t)) ?? [];
    const inLog = plain(options.inLogOf);
    const raw = plain(options.rawDataOf).filter((t) => !inLog.includes(t));
    const param = (value: unknown) => `$${params.push(value) + 2}`;
    const inLogTypes = inLog.length > 0 ? param(inLog) : undefined;
    const rawTypes = raw.length > 0 ? param(raw) : undefined;
    const dataTypes = options.withDataOf ? param(options.withDataOf) : undefined;
    let data = dataTypes ? `CASE WHEN type = ANY(${dataTypes}::text[]) THEN data END` : 'data';
    for (const types of [rawTypes, inLogTypes]) if (types) data = `CASE WHEN type = ANY(${types}::text[]) THEN NULL ELSE ${data} END`;
    let columns = COLUMNS.replace(' data,', ` ${data} AS data,`);
    if (rawTypes) columns += `, CASE WHEN type = ANY(${rawTypes}::text[]) THEN data::text END AS raw_data`;
    if (inLogTypes) columns += `, type = ANY(${inLogTypes}::text[]) AS in_log`;
    // Head and events come from one statement, so one snapshot: the page's position is exact (and the
    // personal-data epoch, when asked, is the one the lists had when the page was read).
    const epoch = options.withPersonalEpoch ? ', (SELECT epoch FROM mds_personal_epoch) AS personal_epoch' : '';
    const { rows } = await this.pool.query<EventRow & { head: number; personal_epoch?: string }>(
      `WITH h AS (SELECT position AS head${epoch} FROM mds_log_head)
       SELECT h.*, e.* FROM h LEFT JOIN LATERAL (
         SELECT ${columns} FROM mds_events
          WHERE position > $1 ${where}
          ORDER BY position LIMIT $2) e ON true`,
      [after, limit, ...params],
    );
    const head = rows[0]?.head ?? 0;
    const events = rows.filter((r) => r.position !== null).map((r) => this.toRecorded(r));
    const position = events.length === limit ? events[events.length - 1].position : Math.max(after, head);
    return options.withPersonalEpoch && rows[0] ? { events, position, personalEpoch: Number(rows[0].personal_epoch) } : { events, position };
  }

  private filterSql(filter: EventFilter | undefined, firstParam: number): { where: string; params: unknown[] } {
    const parts: string[] = [];
    const params: unknown[] = [];
    if (filter?.types) {
      params.push(filter.types);
      parts.push(`type = ANY($${firstParam + params.length - 1}::text[])`);
    }
    if (filter?.streamPrefixes) {
      params.push(filter.streamPrefixes.map(likePrefix));
      parts.push(`stream LIKE ANY($${firstParam + params.length - 1}::text[])`);
    }
    if (filter?.streams) {
      params.push(filter.streams);
      parts.push(`stream = ANY($${firstParam + params.length - 1}::text[])`);
    }
    if (filter?.since) {
      params.push(filter.since);
      parts.push(`created_at >= $${firstParam + params.length - 1}::timestamptz`);
    }
    if (filter?.until) {
      params.push(filter.until);
      parts.push(`created_at < $${firstParam + params.length - 1}::timestamptz`);
    }
    if (filter?.actor) {
      params.push(filter.actor);
      parts.push(`metadata->>'actor' = $${firstParam + params.length - 1}`);
    }
    return { where: parts.map((p) => `AND ${p}`).join(' '), params };
  }

  subscribe(options: SubscribeOptions = {}): EventSubscription {
    return catchUpSubscription(this, options, this.options.notifications ? 5000 : 250);
  }

  async headPosition(): Promise<number> {
    const { rows } = await this.pool.query<{ position: number }>('SELECT position FROM mds_log_head');
    return rows[0]?.position ?? 0;
  }

  waitForAppend(position: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const notifications = this.options.notifications;
    if (notifications && this.announcedHead > position) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        notifications?.off('mds_events', onNotify);
        notifications?.off('reconnected', done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const onNotify = (payload: string) => {
        if (parseAnnouncement(payload).last > position) done();
      };
      const timer = setTimeout(done, notifications ? timeoutMs : Math.min(timeoutMs, 250));
      notifications?.on('mds_events', onNotify);
      notifications?.on('reconnected', done);
      signal?.addEventListener('abort', done);
      // Without notifications, an append may have landed between the caller's read and now.
      if (!notifications) this.headPosition().then((head) => head > position && done(), () => undefined);
    });
  }

  waitForTypes(position: number, types: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<{ skipTo: number; read: boolean }> {
    const notifications = this.options.notifications;
    if (!notifications) return this.waitForAppend(position, timeoutMs, signal).then(() => ({ skipTo: position, read: true }));
    const now = this.skipFrom(position, types);
    if (now.read) return Promise.resolve(now);
    return new Promise((resolve) => {
      const finish = (result: { skipTo: number; read: boolean }) => {
        clearTimeout(timer);
        notifications.off('mds_events', onNotify);
        notifications.off('reconnected', onReconnect);
        signal?.removeEventListener('abort', onTimeout);
        resolve(result);
      };
      // Runs after the store's own listener (registered first) has recorded the announcement. Moving
      // past other types ends the wait too, so the reader's checkpoint can follow.
      const onNotify = () => {
        const r = this.skipFrom(position, types);
        if (r.read || r.skipTo > position) finish(r);
      };
      const onTimeout = () => finish(this.skipFrom(position, types));
      const onReconnect = () => finish({ skipTo: position, read: true });
      const timer = setTimeout(onTimeout, timeoutMs);
      notifications.on('mds_events', onNotify);
      notifications.on('reconnected', onReconnect);
      signal?.addEventListener('abort', onTimeout);
    });
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1 FROM mds_log_head');
  }

  async close(): Promise<void> {
    // The pool belongs to the caller.
  }

  private toRecorded(row: EventRow): RecordedEvent {
    const event: RecordedEvent = {
      id: row.id,
      stream: row.stream,
      revision: row.revision,
      position: row.position,
      type: row.type,
      data: row.data,
      metadata: row.metadata,
      createdAt: row.created_at,
    };
    if (typeof row.raw_data === 'string') event.rawData = row.raw_data;
    if (row.in_log === true) event.dataInTable = 'mds_events';
    // An event read without its data (withDataOf), as text (rawDataOf) or left in the log (inLogOf) is passed on as it is.
    return row.data === null ? event : this.upcasters.apply(event);
  }
}
