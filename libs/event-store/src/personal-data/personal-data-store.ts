import { createHash, randomBytes, randomUUID } from 'node:crypto';
import * as path from 'node:path';
import type { Pool } from 'pg';
import { canonicalJson, withSortedKeys } from '#mds/platform';
import {
  EventStoreAccessDeniedError,
  EventStoreAppendTooLargeError,
  EventStoreUnavailableError,
  IdempotencyConflictError,
  InvalidAppendError,
  WrongExpectedRevisionError,
} from '../event-store.errors';
import type {
  AppendOptions,
  AppendResult,
  EventStore,
  EventSubscription,
  NewEvent,
  ReadAllOptions,
  ReadAllPage,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
} from '../event-store.port';
import { PostgresEventStore } from '../postgres/postgres-event-store';

/**
 * Forgettable payloads (see the README's decision on personal data): the personal fields of the
 * records of some event types never enter the log. On append they are taken out of each record and
 * kept, as one list per event (`records[i]` the personal fields of the event's i-th record, or null),
 * in `mds_personal_data` in the service's PostgreSQL, keyed by the event's id; the event keeps the
 * rest. Readers get the records whole again: this store merges the lists back into what it reads, and
 * projections that read events in SQL where they lie (`dataInTable`) zip them there (pageRecords).
 * Forgetting rewrites a list, never an event: the log stays append-only and its bytes unchanged.
 */
export const PERSONAL_DATA_MIGRATIONS = { component: 'personal-data', dir: path.join(__dirname, 'migrations') };

/**
 * What of each event type is kept apart: the personal fields of its records (data `{records: [...]}`),
 * or `{list: key}`: the whole list under that key (payloads the service does not look into, such as the
 * messages clients post to a datatarget, which a retention period drops: README "Forgetting").
 */
export type PersonalFields = Readonly<Record<string, readonly string[] | { readonly list: string }>>;

type Rec = Record<string, unknown>;

/**
 * Records that group their fields under a key (a sale's `fields`) name a personal field of the group
 * as `<group>.<field>`; only these groups are known to the SQL that zips the lists (PERSONAL_MERGE_SQL).
 */
export const PERSONAL_GROUPS = ['fields'] as const;

/**
 * A record's personal fields apart from the rest (null when it has none), their keys in sorted order,
 * so that the list's canonical JSON (the commitment's) is the serialiser's own text.
 */
export function splitRecord(record: unknown, fields: readonly string[]): { rest: unknown; personal: Rec | null } {
  if (!isObject(record)) return { rest: record, personal: null };
  const { names, sorted } = planOf(fields);
  // Called for every record of an import: no object is made that the result does not keep.
  let found = false;
  let groups: Rec | null = null;
  const rest: Rec = {};
  for (const k in record) {
    const v = record[k];
    if (names.has(k)) found = true;
    else if ((PERSONAL_GROUPS as readonly string[]).includes(k) && isObject(v)) {
      const inner = splitRecord(v, groupFields(fields, k));
      rest[k] = inner.rest;
      if (inner.personal) (groups ??= {})[k] = inner.personal;
    } else rest[k] = v;
  }
  if (!found && groups === null) return { rest, personal: null };
  // The fields in sorted order, taken from the record (a group's, found above, sorted in after them).
  const ordered: Rec = {};
  for (let i = 0; i < sorted.length; i++) if (Object.hasOwn(record, sorted[i])) ordered[sorted[i]] = record[sorted[i]];
  return { rest, personal: groups !== null ? withSortedKeys({ ...ordered, ...groups }) : ordered };
}

/**
 * The fields of group `group` in `fields`, named within it. Apart from splitRecord's loop: a closure
 * there over its key made every key of every record a context object of garbage (0.2 ms per 1,000).
 */
const groupFields = (fields: readonly string[], group: string): string[] => fields.filter((f) => f.startsWith(`${group}.`)).map((f) => f.slice(group.length + 1));

/** A field list as a set and sorted, worked out once per list (a type's list is one array; a list with the settings' fields, one per event). */
const plans = new WeakMap<readonly string[], { names: Set<string>; sorted: string[] }>();
function planOf(fields: readonly string[]): { names: Set<string>; sorted: string[] } {
  let plan = plans.get(fields);
  if (!plan) plans.set(fields, (plan = { names: new Set(fields), sorted: [...fields].sort() }));
  return plan;
}

/** A record with its personal fields back (the rest never has them; a group's are merged into it). */
export function mergeRecord(record: unknown, personal: unknown): unknown {
  if (!isObject(personal) || !isObject(record)) return record;
  const out: Rec = { ...record };
  for (const [k, v] of Object.entries(personal)) out[k] = isObject(v) && isObject(out[k]) ? { ...(out[k] as Rec), ...v } : v;
  return out;
}

/** The records with their personal fields back. */
export function mergeRecords(records: unknown[], personal: unknown[]): unknown[] {
  return records.map((r, i) => mergeRecord(r, personal[i]));
}

/** mergeRecord in SQL, for a record `rec` and its personal fields `pd` (jsonb expressions). */
export function PERSONAL_MERGE_SQL(rec: string, pd: string): string {
  const groups = PERSONAL_GROUPS.map((g) => `WHEN ${pd} ? '${g}' THEN jsonb_set(${rec} || (${pd} - '${g}'), '{${g}}', coalesce(${rec}->'${g}', '{}') || (${pd}->'${g}'))`).join(' ');
  return `CASE WHEN coalesce(jsonb_typeof(${pd}), '') <> 'object' OR coalesce(jsonb_typeof(${rec}), '') <> 'object' THEN ${rec} ${groups} ELSE ${rec} || ${pd} END`;
}

/** An event's kept fields as the auditors' export shows them, and the salt of its commitment (null once erased). */
export interface KeptFields {
  fields: Rec;
  salt: string | null;
}

const SALT = /^[A-Za-z0-9_-]{22}$/;
const newSalt = () => randomBytes(16).toString('base64url');

/**
 * What an event commits to of the fields kept apart from it (metadata.personal_commitment): SHA-256
 * of a random salt, a newline and their canonical JSON (`{records: [...]}` or `{<list key>: [...]}`).
 * The salt is kept beside them and erased with them: while it is there, an auditor's export shows
 * whether they are still what was appended; once they are forgotten, nothing can test a guess.
 */
export const personalCommitment = (salt: string, fields: Rec): string => createHash('sha256').update(salt).update('\n').update(canonicalJson(fields)).digest('hex');

/** personalCommitment of `{[key]: list}`, given the list's canonical JSON (written once, for its row too). */
export const listCommitment = (salt: string, key: string, listText: string): string =>
  createHash('sha256').update(salt).update('\n').update(`{${JSON.stringify(key)}:${listText}}`).digest('hex');

interface ListRow {
  id: string;
  type: string;
  whole?: string;
  /** The list's canonical JSON. */
  text: string;
  revision: number | null;
  salt: string;
}

/** The lists as one JSON array for SQL (`[{id, type, whole, records, revision, salt}]`), each list's text as it is. */
const listsJson = (rows: ListRow[]): string =>
  `[${rows.map((r) => `{"id":${JSON.stringify(r.id)},"type":${JSON.stringify(r.type)},"whole":${JSON.stringify(r.whole ?? null)},"records":${r.text},"revision":${r.revision},"salt":"${r.salt}"}`).join(',')}]`;

const isObject = (x: unknown): x is Rec => x !== null && typeof x === 'object' && !Array.isArray(x);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Failures that say an append recorded nothing. Anything else (a lost answer, a dropped connection, a
 * driver's error) may have recorded it: its lists stay until the log says (sweepUnsettled).
 */
function nothingRecorded(err: unknown): boolean {
  return (
    err instanceof WrongExpectedRevisionError ||
    err instanceof IdempotencyConflictError ||
    err instanceof EventStoreAppendTooLargeError ||
    err instanceof InvalidAppendError ||
    err instanceof EventStoreAccessDeniedError ||
    (err instanceof EventStoreUnavailableError && !err.outcomeUnknown)
  );
}

export interface UnsettledOptions {
  /** How long a list stays unsettled before the sweep looks for its event (default 15 minutes). */
  unsettledGraceMs?: number;
  /** How often appends start a sweep, at most (default every minute). */
  sweepEveryMs?: number;
}

export class PersonalDataEventStore implements EventStore {
  private readonly graceMs: number;
  private readonly sweepEveryMs: number;
  private nextSweep = 0;
  private sweeping?: Promise<unknown>;

  constructor(
    private readonly inner: EventStore,
    private readonly pool: Pool,
    private readonly fields: PersonalFields,
    options: UnsettledOptions = {},
  ) {
    this.graceMs = options.unsettledGraceMs ?? 15 * 60_000;
    this.sweepEveryMs = options.sweepEveryMs ?? 60_000;
  }

  get kind() {
    return this.inner.kind;
  }

  async append(stream: string, events: NewEvent[], options?: AppendOptions): Promise<AppendResult> {
    this.sweepSoon();
    const expected = options?.expectedRevision;
    // Where each event would be, when the expected revision says (the sweep reads there).
    const from = expected === 'no_stream' ? 0 : typeof expected === 'number' ? expected + 1 : null;
    const rows: ListRow[] = [];
    const generated = new Set<string>();
    const split = events.map((e, i) => {
      const fields = this.fields[e.type];
      const revision = from === null ? null : from + i;
      if (fields && 'list' in fields) {
        const { [fields.list]: items, ...rest } = (e.data ?? {}) as Rec;
        if (!Array.isArray(items)) return e;
        const id = e.id ?? randomUUID();
        if (e.id === undefined) generated.add(id);
        const salt = newSalt();
        const text = canonicalJson(items);
        rows.push({ id, type: e.type, whole: fields.list, text, revision, salt });
        return { ...e, id, data: rest, metadata: { ...e.metadata, personal_commitment: listCommitment(salt, fields.list, text) } };
      }
      const records = (e.data as { records?: unknown } | null)?.records;
      if (!fields || !Array.isArray(records)) return e;
      // Besides the type's own, the fields the settings mark personal, named in the metadata.
      const more = (e.metadata as { personal_fields?: unknown } | undefined)?.personal_fields;
      const all = Array.isArray(more) ? [...fields, ...more.filter((f): f is string => typeof f === 'string')] : fields;
      const parts = records.map((r) => splitRecord(r, all));
      if (parts.every((p) => p.personal === null)) return e;
      const id = e.id ?? randomUUID();
      if (e.id === undefined) generated.add(id);
      const salt = newSalt();
      const text = canonicalJson(parts.map((p) => p.personal));
      rows.push({ id, type: e.type, text, revision, salt });
      return { ...e, id, data: { ...(e.data as Rec), records: parts.map((p) => p.rest) }, metadata: { ...e.metadata, personal_commitment: listCommitment(salt, 'records', text) } };
    });
    if (rows.length === 0) return this.inner.append(stream, events, options);
    // The log in the same PostgreSQL: the lists go in with the events, in one statement and one
    // transaction (nothing unsettled, no sweep). Elsewhere (EventStoreDB), lists first, then settled.
    if (this.inner instanceof PostgresEventStore) return this.inner.appendWithLists(stream, split, options, listsJson(rows));
    // The lists first, marked unsettled: an event never names a list that is not there, and a list
    // whose event never comes is found by the sweep. A retry with the same ids finds them kept.
    await this.insertLists(listsJson(rows), stream);
    let result: AppendResult;
    try {
      result = await this.inner.append(stream, split, options);
    } catch (err) {
      // Nothing names the lists of events this append made up, when it recorded nothing: they go with
      // it. After an unknown outcome the events may be in the log: their lists stay, marked.
      if (generated.size > 0 && nothingRecorded(err)) await this.pool.query('DELETE FROM mds_personal_data WHERE event_id = ANY($1::uuid[])', [[...generated]]).catch(() => undefined);
      throw err;
    }
    await this.settle(rows, !result.duplicate);
    return result;
  }

  /**
   * Marks lists settled once their events are recorded (or were there already), in one round trip
   * without waiting for the disk: a mark lost here only costs the sweep a read of the stream. The ids
   * are the append's, UUIDs by now; anything else is left to the sweep.
   */
  private async settle(rows: Array<{ id: string; salt: string }>, recorded: boolean): Promise<void> {
    if (!rows.every((r) => UUID.test(r.id) && SALT.test(r.salt))) return;
    // A list left by an earlier attempt of these events keeps its salt unless this append recorded
    // them: then the events in the log commit to this append's salt.
    const values = rows.map((r) => `('${r.id}'::uuid, '${r.salt}')`).join(',');
    await this.pool
      .query(
        // Two statements in one query: one implicit transaction, which SET LOCAL applies to.
        `SET LOCAL synchronous_commit = off;
         UPDATE mds_personal_data p SET unsettled_at = NULL, unsettled_stream = NULL, unsettled_revision = NULL${recorded ? ', salt = x.salt' : ''}
           FROM (VALUES ${values}) AS x(id, salt)
          WHERE p.event_id = x.id AND p.unsettled_at IS NOT NULL`,
      )
      .catch(() => undefined);
  }

  /**
   * Writes the lists, unsettled. A list already there keeps its text (forgetting may have rewritten
   * it); one still unsettled is marked again from now, so a sweep that found its event absent before
   * this retry does not delete it (its delete asks for the older mark).
   */
  private async insertLists(json: string, stream: string): Promise<void> {
    const sql = `INSERT INTO mds_personal_data (event_id, type, whole, records, unsettled_at, unsettled_stream, unsettled_revision, salt)
                 SELECT x.id, x.type, x.whole, x.records, now(), $2, x.revision, x.salt
                   FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, type text, whole text, records jsonb, revision bigint, salt text)
                 ON CONFLICT (event_id) DO UPDATE SET unsettled_at = EXCLUDED.unsettled_at WHERE mds_personal_data.unsettled_at IS NOT NULL`;
    await this.pool.query(sql, [json, stream]);
  }

  /** Starts a sweep from an append, at most every sweepEveryMs and one at a time; it never fails the append. */
  private sweepSoon(): void {
    if (Date.now() < this.nextSweep || this.sweeping) return;
    this.nextSweep = Date.now() + this.sweepEveryMs;
    this.sweeping = this.sweepUnsettled()
      .catch(() => undefined)
      .finally(() => (this.sweeping = undefined));
  }

  /**
   * Lists unsettled for longer than the grace period (their append's outcome was unknown, or the
   * process stopped before it knew): their events are looked for in the log where they would be.
   * Found, the list is settled; absent, it is deleted, so personal fields nothing names do not stay
   * beyond forgetting's reach. The delete asks for the mark it saw: a retry that marked the list
   * again meanwhile keeps it. A stream the log cannot read now waits for the next sweep.
   */
  async sweepUnsettled(): Promise<{ settled: number; deleted: number }> {
    const { rows } = await this.pool.query<{ event_id: string; stream: string; revision: string | null; cutoff: string }>(
      `SELECT event_id, unsettled_stream AS stream, unsettled_revision AS revision, (now() - make_interval(secs => $1))::text AS cutoff
         FROM mds_personal_data WHERE unsettled_at <= now() - make_interval(secs => $1) ORDER BY unsettled_at LIMIT 1000`,
      [this.graceMs / 1000],
    );
    const byStream = new Map<string, typeof rows>();
    for (const r of rows) byStream.set(r.stream, [...(byStream.get(r.stream) ?? []), r]);
    let settled = 0;
    let deleted = 0;
    for (const [stream, marked] of byStream) {
      const revisions = marked.map((r) => (r.revision === null ? null : Number(r.revision)));
      const known = revisions.every((r) => r !== null) ? (revisions as number[]) : undefined;
      let present: Set<string>;
      try {
        const from = known ? Math.min(...known) : 0;
        const read = await this.inner.readStream(stream, { fromRevision: from, limit: known ? Math.max(...known) - from + 1 : undefined, withDataOf: [] });
        present = new Set(read.map((e) => e.id));
      } catch {
        continue;
      }
      const found = marked.filter((r) => present.has(r.event_id)).map((r) => r.event_id);
      const absent = marked.filter((r) => !present.has(r.event_id)).map((r) => r.event_id);
      if (found.length > 0) {
        settled += (await this.pool.query('UPDATE mds_personal_data SET unsettled_at = NULL, unsettled_stream = NULL, unsettled_revision = NULL WHERE event_id = ANY($1::uuid[]) AND unsettled_at IS NOT NULL', [found])).rowCount ?? 0;
      }
      if (absent.length > 0) {
        deleted += (await this.pool.query('DELETE FROM mds_personal_data WHERE event_id = ANY($1::uuid[]) AND unsettled_at <= $2::timestamptz', [absent, marked[0].cutoff])).rowCount ?? 0;
      }
    }
    return { settled, deleted };
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    const events = await this.inner.readStream(stream, options);
    if (options?.keptOnly) return events;
    // Data not asked for (which EventStoreDB sends anyway) is not merged with its lists, only dropped.
    const wanted = options?.withDataOf;
    return this.merged(wanted ? events.map((e) => (e.data !== null && this.fields[e.type] && !wanted.includes(e.type) ? { ...e, data: null, rawData: undefined } : e)) : events);
  }

  async readAll(options?: ReadAllOptions): Promise<ReadAllPage> {
    // The epoch comes with the page when the log is in this PostgreSQL (see mergedPage).
    const personal = !options?.filter?.types || options.filter.types.some((t) => this.fields[t]);
    return this.mergedPage(await this.inner.readAll(personal && this.inner.kind === 'postgres' ? { ...options, withPersonalEpoch: true } : options));
  }

  /**
   * A page of the log as it holds it (events without the fields kept apart), and beside it each
   * event's kept fields as they are now (`{records}` or `{<list key>: [...]}`; markers once forgotten,
   * `"[expired]"` once a retention period dropped them): what the auditors' export chains and what it
   * shows beside the chain (left out with `withKept` false: the chain alone does not read them).
   */
  async readAllApart(options?: ReadAllOptions, withKept = true): Promise<{ page: ReadAllPage; kept: Map<string, KeptFields> }> {
    const page = await this.inner.readAll(options);
    const kept = new Map<string, KeptFields>();
    if (!withKept) return { page, kept };
    const ids = page.events.filter((e) => this.fields[e.type]).map((e) => e.id);
    for (const r of await this.listsOf(ids, true)) kept.set(r.event_id, { fields: { [r.whole ?? 'records']: r.records }, salt: r.salt ?? null });
    return { page, kept };
  }

  /** The kept lists of these events (those that have one), with their commitments' salts when asked. */
  private async listsOf(ids: string[], salts = false): Promise<Array<{ event_id: string; whole: string | null; records: unknown[]; salt?: string | null }>> {
    if (ids.length === 0) return [];
    return (
      await this.pool.query<{ event_id: string; whole: string | null; records: unknown[]; salt?: string | null }>(
        `SELECT event_id, whole, records${salts ? ', salt' : ''} FROM mds_personal_data WHERE event_id = ANY($1::uuid[])`,
        [ids],
      )
    ).rows;
  }

  subscribe(options?: SubscribeOptions): EventSubscription {
    const inner = this.inner.subscribe(options);
    const mergedPage = this.mergedPage.bind(this);
    return {
      close: () => inner.close(),
      async *[Symbol.asyncIterator]() {
        for await (const page of inner) yield await mergedPage(page);
      },
    };
  }

  headPosition(): Promise<number> {
    return this.inner.headPosition();
  }

  waitForAppend(position: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return this.inner.waitForAppend(position, timeoutMs, signal);
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  async close(): Promise<void> {
    await this.sweeping;
    await this.inner.close();
  }

  get waitForTypes(): EventStore['waitForTypes'] {
    return this.inner.waitForTypes?.bind(this.inner);
  }

  /** How many forgettings have rewritten lists so far (mds_personal_epoch). */
  private async epoch(): Promise<number> {
    return Number((await this.pool.query<{ epoch: string }>('SELECT epoch FROM mds_personal_epoch')).rows[0].epoch);
  }

  /**
   * A page with its records' personal fields merged back and, when it holds events of a type with
   * personal fields, the epoch read before any of those fields were (by the page's own statement when
   * the log is in this PostgreSQL): a forgetting that commits after that is seen by the reader's check
   * (mds_personal_epoch_unchanged). The log's bytes never change, so a page of other events (delivery
   * attempts, posts) needs no epoch and costs no round trip.
   */
  private async mergedPage(page: ReadAllPage): Promise<ReadAllPage> {
    if (!page.events.some((e) => this.fields[e.type])) return { events: page.events, position: page.position };
    const epoch = page.personalEpoch ?? (await this.epoch());
    return { ...page, events: await this.merged(page.events), personalEpoch: epoch };
  }

  /** The events with their records' personal fields merged back, where they were read with data. */
  private async merged(events: RecordedEvent[]): Promise<RecordedEvent[]> {
    const wanted = events.filter((e) => this.fields[e.type] && e.dataInTable === undefined && (e.data !== null || e.rawData !== undefined));
    if (wanted.length === 0) return events;
    const rows = await this.listsOf(wanted.map((e) => e.id));
    if (rows.length === 0) return events;
    const lists = new Map(rows.map((r) => [r.event_id, r]));
    const want = new Set(wanted);
    const merge = (data: Rec, row: { whole: string | null; records: unknown[] }): Rec =>
      row.whole !== null ? { ...data, [row.whole]: row.records } : { ...data, records: mergeRecords(data.records as unknown[], row.records) };
    return events.map((e) => {
      const row = lists.get(e.id);
      if (!row || !want.has(e)) return e;
      if (e.rawData !== undefined) return { ...e, rawData: JSON.stringify(merge(JSON.parse(e.rawData) as Rec, row)) };
      return { ...e, data: merge(e.data as Rec, row) };
    });
  }
}
