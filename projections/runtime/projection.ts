import type { PoolClient } from 'pg';
import { PERSONAL_MERGE_SQL, type RecordedEvent } from '#mds/event-store';

/** What `apply` gets: the transaction (search_path set to the generation's schema) and the page's end. */
export interface ProjectionTx {
  query: PoolClient['query'];
  /** Schema of the generation being written (tables are reachable unqualified too). */
  schema: string;
  /** Checkpoint this batch commits: the position the read went up to. */
  position: number;
  /** Aborted when the runner stops: an apply that waits (for other read models) gives up. */
  signal?: AbortSignal;
  /**
   * Set by a replay into a schema: the read models this projection reads there (its `reads`) are
   * already built up to this position, so there is nothing to wait for (waitForUpstream).
   */
  upstreamAt?: number;
  /**
   * A keyed hash (HMAC under the service key) of a personal value: what may be kept of one where the
   * value itself may not (forgetting keeps those of the identifiers it erased). Absent where no key is.
   */
  keyedHash?: (value: string) => string;
  /**
   * The events at these log positions, with their data: for a projection that needs earlier events
   * than its page's (datasync folds a record's history the first time it sees it).
   */
  readAt?: (positions: number[]) => Promise<Map<number, RecordedEvent>>;
}

export interface Projection {
  /** snake_case; also the prefix of its schemas and its checkpoint key. */
  name: string;
  /** Bump on any change of logic or tables: a new version is rebuilt beside the serving one. */
  version: number;
  /** Event types it handles; the runner reads only those (all when absent). */
  eventTypes?: string[];
  streamPrefixes?: string[];
  /**
   * Event types whose data `apply` reads; the others may arrive with `data: null` (all carry it when
   * absent). An apply that finds it needs data it was not given throws EventDataNeeded: the runner
   * then reads the page again with all data, and keeps doing so.
   */
  dataTypes?: string[];
  /**
   * Event types whose data `apply` reads only through `pageRecords` or `pageEvents`: when the log is a
   * table in the same database they arrive without data (`dataInTable`) and the statement reads them
   * from the log, so an import chunk never leaves PostgreSQL; otherwise they arrive as the stored
   * JSON text (`rawData`, `data: null`), which spares parsing and serialising them in Node.
   */
  logDataTypes?: string[];
  /** Events per transaction when smaller than the runner's (import chunks carry ~1,000 records each). */
  batchSize?: number;
  /**
   * Read models it reads while applying, with the least version its SQL needs (campaign statistics
   * read customers, sales, products): it waits for them (waitForUpstream), and a replay builds them first.
   */
  reads?: Record<string, number>;
  /** Tables its migrations create; each is served to readers as a view of the same name. */
  tables: string[];
  /** Folder of `*.sql` run, in name order, inside a new generation's schema. */
  migrationsDir: string;
  /** Applies one page of events; must be deterministic (a rebuild gives byte-identical tables). */
  apply(events: RecordedEvent[], tx: ProjectionTx): Promise<void>;
}

/** Thrown by `apply` when an event it was given without data (see `dataTypes`) turns out to need it. */
export class EventDataNeeded extends Error {
  constructor(type: string) {
    super(`${type} needs its data`);
  }
}

/** Names of projections and their tables: snake_case, safe to write into SQL as they are. */
export const NAME = /^[a-z][a-z0-9_]{0,40}$/;

export function assertValidProjection(p: Projection): void {
  if (!NAME.test(p.name)) throw new Error(`projection name "${p.name}" must be snake_case (a-z, 0-9, _)`);
  if (!Number.isInteger(p.version) || p.version < 1) throw new Error(`projection ${p.name}: version must be a positive integer`);
  for (const t of p.tables) if (!NAME.test(t)) throw new Error(`projection ${p.name}: table "${t}" must be snake_case`);
}

/**
 * A page's import chunks (`{records: [...]}` events) as records for SQL. `from` is the FROM items
 * giving every record as `r(rec, n)` (n counting from 1 in its chunk) with its chunk's `c.position`
 * and `c.at`, read from the query parameter `param`, whose value is `json`: `[{position, at, ...}]`.
 * A chunk goes in with its records reshaped (`records`), as stored (read as text: `rawData`, its
 * records are `data->'records'`), parsed, or not at all when its data was left in the log
 * (`dataInTable`, see Projection.logDataTypes): the statement reads it there by position.
 */
export function pageRecords(events: RecordedEvent[], param: string, records?: (e: RecordedEvent) => unknown[] | undefined): { from: string; json: string } {
  const inLog = events.some((e) => e.dataInTable !== undefined);
  const parts = events.map((e) => {
    const reshaped = records?.(e);
    const head = `{"position":${e.position},${inLog ? `"id":"${e.id}",` : ''}"at":${JSON.stringify(e.createdAt)}`;
    return reshaped === undefined ? `${head},${dataPart(e)}}` : `${head},"records":${JSON.stringify(reshaped)}}`;
  });
  const source = `coalesce(c.records, ${dataSql(events, 'c', "->'records'")})`;
  return {
    json: `[${parts.join(',')}]`,
    // Records read from the log where they lie get their personal fields back beside them: the
    // chunk's list in mds_personal_data (forgettable payloads), zipped by place, each read once.
    // Records that came from Node already have them (the event store merged them on reading).
    from: inLog
      ? `jsonb_to_recordset(${param}::jsonb) AS c(position bigint, id uuid, at timestamptz, records jsonb, data jsonb, logged boolean)
        CROSS JOIN LATERAL (
          SELECT ${PERSONAL_MERGE_SQL('z.rec', 'z.pd')} AS rec, z.n
            FROM ROWS FROM (jsonb_array_elements(${source}),
                            jsonb_array_elements(CASE WHEN c.logged THEN (SELECT p.records FROM mds_personal_data p WHERE p.event_id = c.id) END)) WITH ORDINALITY AS z(rec, pd, n)
          OFFSET 0) r` // not pulled up: each record is merged once, however often the statement names r.rec
      : `jsonb_to_recordset(${param}::jsonb) AS c(position bigint, at timestamptz, records jsonb, data jsonb, logged boolean)
        CROSS JOIN LATERAL jsonb_array_elements(${source}) WITH ORDINALITY AS r(rec, n)`,
  };
}

/**
 * A page's events for SQL: `from` is a FROM item giving each event as `e(ord, position, stream, data)`
 * (ord counting from 0 in page order), read from the query parameter `param`, whose value is `json`.
 * An event goes in as stored (`rawData`), serialised, or not at all when its data was left in the log
 * (`dataInTable`, see Projection.logDataTypes): the statement reads it there by position. Data read
 * from the log may still be compressed: take its fields in one go (`jsonb_to_record`) once per event,
 * not one by one or once per row of a join, or the whole event is decompressed for every read.
 */
export function pageEvents(events: RecordedEvent[], param: string): { from: string; json: string } {
  const parts = events.map((e, ord) => `{"ord":${ord},"position":${e.position},"id":"${e.id}","at":${JSON.stringify(e.createdAt)},"stream":${JSON.stringify(e.stream)},${dataPart(e)}}`);
  const logTable = events.find((e) => e.dataInTable !== undefined)?.dataInTable;
  // Read from the log where it lies, an event's records get their personal fields back (see pageRecords).
  const data =
    logTable === undefined
      ? 'x.data'
      : `CASE WHEN x.logged THEN (
           SELECT CASE WHEN p.records IS NULL THEN l.data WHEN p.whole IS NOT NULL THEN jsonb_set(l.data, ARRAY[p.whole], p.records) ELSE jsonb_set(l.data, '{records}', (
                    SELECT coalesce(jsonb_agg(${PERSONAL_MERGE_SQL('z.rec', 'z.pd')} ORDER BY z.n), '[]')
                      FROM ROWS FROM (jsonb_array_elements(l.data->'records'), jsonb_array_elements(p.records)) WITH ORDINALITY AS z(rec, pd, n))) END
             FROM ${logTable} l LEFT JOIN mds_personal_data p ON p.event_id = l.id WHERE l.position = x.position) ELSE x.data END`;
  return {
    json: `[${parts.join(',')}]`,
    from: `(SELECT x.ord, x.position, x.id, x.at, x.stream, ${data} AS data
              FROM jsonb_to_recordset(${param}::jsonb) AS x(ord int, position bigint, id uuid, at timestamptz, stream text, data jsonb, logged boolean)) e`,
  };
}

/** An event's data in a page's JSON: only a flag when it was left in the log, else as stored or serialised. */
function dataPart(e: RecordedEvent): string {
  return e.dataInTable !== undefined ? '"logged":true' : `"data":${e.rawData ?? JSON.stringify(e.data)}`;
}

/**
 * SQL for the data (or its member `path`) of the page row `row`: read back from the log by position
 * when the page left it there (see dataPart), the path applied inside so the data is read once.
 */
function dataSql(events: RecordedEvent[], row: string, path = ''): string {
  const logTable = events.find((e) => e.dataInTable !== undefined)?.dataInTable;
  if (logTable === undefined) return `${row}.data${path}`;
  return `CASE WHEN ${row}.logged THEN (SELECT l.data${path} FROM ${logTable} l WHERE l.position = ${row}.position) ELSE ${row}.data${path} END`;
}

/** The event's data, parsed from `rawData` when it was read as text. */
export function dataOf<T>(e: RecordedEvent): T {
  // Left in the log: a projection declared a type in logDataTypes whose data it reads in Node after all.
  if (e.dataInTable !== undefined) throw new EventDataNeeded(e.type);
  return (e.data ?? (e.rawData !== undefined ? JSON.parse(e.rawData) : null)) as T;
}

/**
 * Runs a statement that joins a page's temporary table with a read model, joining by index (nested
 * loops, one probe per staged row) so its cost follows the page and not the table: a page's
 * temporary table has no statistics, and the planner guessing it large would hash the whole read
 * model for every page, which makes a rebuild quadratic.
 */
export async function queryByIndex(tx: ProjectionTx, sql: string, params?: unknown[]): Promise<void> {
  const off = 'SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off';
  const on = 'SET LOCAL enable_hashjoin TO DEFAULT; SET LOCAL enable_mergejoin TO DEFAULT';
  if (!params) {
    await tx.query(`${off}; ${sql}; ${on}`);
    return;
  }
  await tx.query(off);
  await tx.query(sql, params);
  await tx.query(on);
}
