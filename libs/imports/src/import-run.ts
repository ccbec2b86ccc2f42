import { createHash, randomUUID } from 'node:crypto';
import { WrongExpectedRevisionError, type EventStore, type NewEvent } from '#mds/event-store';
import { AppError, invalidRequest, unprocessable } from '#mds/platform';
import { CoercionError, MAX_LIST_ITEMS } from './coerce';

export const IMPORT_RUN_ACCEPTED = 'ImportRunAccepted';
/** A bulk update (POST /api/data/query/): a run of its own, header and query in one event. */
export const DATA_QUERY_ACCEPTED = 'DataQueryAccepted';
export const importStream = (runId: string) => `import-${runId}`;

/** One problem with one record, as listed in the answer's `errors`. */
export interface RecordError {
  index: number;
  field: string | null;
  code: string;
  message: string;
}

export interface ImportRunAccepted {
  run_id: string;
  kind: string;
  received: number;
  accepted: number;
  rejected: number;
  errors: RecordError[];
  /** Accepted records that were changed or are worth a look (e.g. an unknown sale state kept as sent). */
  warnings?: RecordError[];
  chunks: number;
  /** sha256 of the records, kept for runs sent with an Idempotency-Key. */
  body_hash: string | null;
  idempotency_key: string | null;
  created_at: string;
  /** Bulk updates only: the query and how many records it matched when accepted. */
  query?: DataQuery;
  matched?: number;
}

/** `{datatype, match, update}` as validated (libs/imports data-query.ts). */
export interface DataQuery {
  datatype: 'customers' | 'products' | 'events' | 'sales';
  match: Record<string, unknown>;
  update: Record<string, unknown>;
}

export interface ImportAnswer {
  response: 'ok';
  run_id: string;
  /** Where to wait for the run to end instead of polling: `GET /api/runs/{id}/?wait=30`. */
  run_url: string;
  accepted: number;
  rejected: number;
  errors: RecordError[];
  warnings?: RecordError[];
}

/**
 * The answer to `?dry_run=true`: what the import of the same body would answer now, less the run
 * (`run_id`, `run_url`), since nothing was recorded: no event, no personal data, no Idempotency-Key.
 */
export interface DryRunAnswer {
  response: 'ok';
  dry_run: true;
  accepted: number;
  rejected: number;
  errors: RecordError[];
  warnings?: RecordError[];
}

/** What an upload answers: the run, or, for a dry run, what the run would be. */
export type UploadAnswer = ImportAnswer | DryRunAnswer;

/** One import request as the HTTP layer parsed it: what every import command carries. */
export interface ImportRequest {
  records: unknown[];
  /** Any record error fails the whole request (`?atomic=true`). */
  atomic: boolean;
  idempotencyKey?: string;
  /** `users/<id>` or `integrations/<id>`: the actor recorded with the events. */
  caller: string;
  /** The access token the request came with (recorded beside the actor). */
  tokenId?: string;
  requestId?: string;
  now?: Date;
  /** `?dry_run=true`: validate and answer as the import would, recording nothing. */
  dryRun?: boolean;
}

/** What a context supplies to run an import of its records. */
export interface ImportKind<R> {
  kind: string;
  /** The event type of one chunk, e.g. `ShopsImported`. */
  chunkEventType: string;
  /**
   * Fields of the records that are personal besides the chunk type's own (the settings'
   * personal_company_fields): named in the chunks' metadata, so the log keeps them apart too.
   */
  personalFields?: string[];
  /** Coerces and validates one record; throws RecordProblem / CoercionError for the first problem. */
  validate(record: unknown, index: number): R;
  /**
   * Whole-request step after the per-record checks, before the append: may reject more records
   * (e.g. a sale transaction without a date), add warnings, assign identifiers in the command
   * (event ids) and reshape what is stored (sale rows → transactions). Absent: records stored as validated.
   * In a dry run (`request.dryRun`) it reads as usual but appends nothing (no identifiers are reserved).
   */
  finish?(accepted: Array<{ index: number; record: R }>, request: { records: unknown[]; errors: RecordError[]; dryRun?: boolean }): Promise<FinishedRecords>;
}

export interface FinishedRecords {
  /** What the chunks carry, in request order. */
  records: unknown[];
  /** Records rejected by the whole-request step (by request index). */
  errors: RecordError[];
  warnings: RecordError[];
}

export class RecordProblem extends Error {
  constructor(
    readonly field: string | null,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Reads `field` of a record through a coercer, turning a CoercionError into a RecordProblem naming the field. */
export function field<T>(record: Record<string, unknown>, name: string, coerce: (v: unknown) => T): T {
  try {
    return coerce(record[name]);
  } catch (err) {
    if (err instanceof CoercionError) throw new RecordProblem(name, err.code, `${name}: ${err.message}`);
    throw err;
  }
}

/** The record as an object, or the record error every import reports for anything else. */
export function recordObject(raw: unknown, noun: string): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new RecordProblem(null, 'invalid_record', `${noun} must be an object`);
  return raw as Record<string, unknown>;
}

/**
 * A key that may be stored: "$" keys are reserved for matching aids, names are at most 200
 * characters, and the names of JavaScript's object machinery are no field of anyone's.
 */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
export function assertUsableKey(key: string): void {
  if (key === '' || key.startsWith('$') || key.length > 200 || RESERVED_KEYS.has(key)) {
    throw new RecordProblem(key.slice(0, 50), 'invalid_key', `"${key.slice(0, 50)}" is not a usable field name`);
  }
}

const MAX_ERRORS_LISTED = 1000;
export const CHUNK_RECORDS = 1000;
export const CHUNK_BYTES = 512 * 1024;

/**
 * Splits records into chunks of at most ~1,000 records or ~512 KB of JSON. Sizes are estimated
 * (jsonLength) rather than serialised: the chunks are serialised once, by the append.
 */
export function chunkRecords<R>(records: R[], maxRecords = CHUNK_RECORDS, maxBytes = CHUNK_BYTES): R[][] {
  const chunks: R[][] = [];
  let current: R[] = [];
  let bytes = 0;
  for (const r of records) {
    const size = jsonLength(r);
    if (current.length > 0 && (current.length >= maxRecords || bytes + size > maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(r);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * About the length of JSON.stringify(value), without building it: exact but for escapes in strings
 * (each counted as one character) and numbers (counted as their shortest form).
 */
export function jsonLength(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'object': {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        let n = 1 + Math.max(0, value.length - 1) + 1;
        for (const v of value) n += v === undefined ? 4 : jsonLength(v);
        return n;
      }
      let n = 2;
      let first = true;
      for (const key in value as Record<string, unknown>) {
        const v = (value as Record<string, unknown>)[key];
        if (v === undefined || typeof v === 'function') continue;
        n += (first ? 0 : 1) + key.length + 3 + jsonLength(v);
        first = false;
      }
      return n;
    }
    default:
      return 0;
  }
}

/**
 * What no record of any kind may hold, whatever its fields (unknown ones are kept as sent): the names
 * of JavaScript's object machinery as keys, and lists longer than MAX_LIST_ITEMS, in the record or in
 * an object of it.
 */
function checkShape(raw: unknown): void {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return;
  for (const key in raw) {
    if (RESERVED_KEYS.has(key)) throw new RecordProblem(key, 'invalid_key', `"${key}" is not a usable field name`);
    const value = (raw as Record<string, unknown>)[key];
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      if (value.length > MAX_LIST_ITEMS) throw new RecordProblem(key, 'too_many_items', `${key}: a list may have at most ${MAX_LIST_ITEMS} items, not ${value.length}`);
      continue;
    }
    for (const inner in value) {
      if (RESERVED_KEYS.has(inner)) throw new RecordProblem(`${key}.${inner}`, 'invalid_key', `"${key}.${inner}" is not a usable field name`);
      const v = (value as Record<string, unknown>)[inner];
      if (Array.isArray(v) && v.length > MAX_LIST_ITEMS) throw new RecordProblem(`${key}.${inner}`, 'too_many_items', `${key}.${inner}: a list may have at most ${MAX_LIST_ITEMS} items, not ${v.length}`);
    }
  }
}

export function validateRecords<R>(kind: ImportKind<R>, records: unknown[]): { accepted: Array<{ index: number; record: R }>; errors: RecordError[] } {
  const accepted: Array<{ index: number; record: R }> = [];
  const errors: RecordError[] = [];
  records.forEach((raw, index) => {
    try {
      checkShape(raw);
      accepted.push({ index, record: kind.validate(raw, index) });
    } catch (err) {
      if (err instanceof RecordProblem) errors.push({ index, field: err.field, code: err.code, message: err.message });
      else if (err instanceof CoercionError) errors.push({ index, field: null, code: err.code, message: err.message });
      else throw err;
    }
  });
  return { accepted, errors };
}

/**
 * The import-run pattern: validate every record, refuse the request when nothing (or, with
 * `atomic`, anything) is invalid, else append the run header and every chunk to `import-<run_id>`
 * in one atomic append and answer once it is durable. With an Idempotency-Key the run id derives
 * from (caller, key), so a retry finds the first run and gets its answer; another body → 422.
 * A dry run (`input.dryRun`) goes as far as the append and answers without it (see DryRunAnswer).
 */
export async function runImport<R>(
  store: EventStore,
  kind: ImportKind<R>,
  input: ImportRequest,
): Promise<{ answer: UploadAnswer; position: number | null; replayed: boolean }> {
  if (input.dryRun) return dryRun(kind, input);
  // The body's hash only matters to recognise a retry, so only requests with a key pay for it.
  const bodyHash = input.idempotencyKey ? createHash('sha256').update(JSON.stringify(input.records)).digest('hex') : null;
  const runId = input.idempotencyKey ? keyedRunId(input.caller, input.idempotencyKey) : randomUUID();
  if (bodyHash) {
    const replay = await previousAnswer(store, runId, bodyHash);
    if (replay) return replay;
  }
  const { stored, errors, warnings } = await decideRecords(kind, input);
  const listed = errors.slice(0, MAX_ERRORS_LISTED);
  const accepted = input.records.length - errors.length;
  const chunks = chunkRecords(stored);
  const header: ImportRunAccepted = {
    run_id: runId,
    kind: kind.kind,
    received: input.records.length,
    accepted,
    rejected: errors.length,
    errors: listed,
    ...(warnings.length > 0 ? { warnings: warnings.slice(0, MAX_ERRORS_LISTED) } : {}),
    chunks: chunks.length,
    body_hash: bodyHash,
    idempotency_key: input.idempotencyKey ?? null,
    created_at: (input.now ?? new Date()).toISOString(),
  };
  const metadata = { actor: input.caller, token_id: input.tokenId, request_id: input.requestId, run_id: runId };
  const events: NewEvent[] = [
    { id: runEventId(runId, bodyHash, 0), type: IMPORT_RUN_ACCEPTED, data: header, metadata },
    ...chunks.map((records, i) => ({
      id: runEventId(runId, bodyHash, i + 1),
      type: kind.chunkEventType,
      data: { run_id: runId, chunk: i + 1, records },
      metadata: kind.personalFields?.length ? { ...metadata, personal_fields: kind.personalFields } : metadata,
    })),
  ];
  try {
    const result = await store.append(importStream(runId), events, { expectedRevision: 'no_stream' });
    return { answer: answerOf(header), position: result.position, replayed: false };
  } catch (err) {
    // A concurrent request with the same key won the race: answer as it did.
    if (err instanceof WrongExpectedRevisionError && bodyHash) {
      const replay = await previousAnswer(store, runId, bodyHash);
      if (replay) return replay;
    }
    throw err;
  }
}

/**
 * Every record validated, then the whole-request step: what the run stores, its errors (in request
 * order) and warnings; 400 when nothing (or, with `atomic`, not everything) can be imported.
 */
async function decideRecords<R>(kind: ImportKind<R>, input: ImportRequest): Promise<{ stored: unknown[]; errors: RecordError[]; warnings: RecordError[] }> {
  const validated = validateRecords(kind, input.records);
  const refuse = (errors: RecordError[], acceptedCount: number) => {
    if (input.records.length > 0 && (acceptedCount === 0 || (input.atomic && errors.length > 0))) {
      throw invalidRequest(
        acceptedCount === 0 ? `No record could be imported (${errors.length} rejected)` : `${errors.length} record(s) rejected; nothing imported (atomic=true)`,
        errors.slice(0, MAX_ERRORS_LISTED),
      );
    }
  };
  refuse(validated.errors, validated.accepted.length);
  let stored: unknown[] = validated.accepted.map((a) => a.record);
  let errors = validated.errors;
  let warnings: RecordError[] = [];
  if (kind.finish && validated.accepted.length > 0) {
    const finished = await kind.finish(validated.accepted, { records: input.records, errors: validated.errors, dryRun: input.dryRun });
    errors = [...errors, ...finished.errors].sort((a, b) => a.index - b.index);
    warnings = finished.warnings;
    refuse(errors, input.records.length - errors.length);
    stored = finished.records;
  }
  return { stored, errors, warnings };
}

/**
 * A dry run: the same checks and whole-request step as the import (read models consulted alike), the
 * same 400s, the same answer less the run. The Idempotency-Key's form is checked, but the key is
 * neither looked up nor kept, so a later import with it is the first.
 */
async function dryRun<R>(kind: ImportKind<R>, input: ImportRequest): Promise<{ answer: DryRunAnswer; position: null; replayed: false }> {
  if (input.idempotencyKey) keyedRunId(input.caller, input.idempotencyKey);
  const { errors, warnings } = await decideRecords(kind, input);
  const inOrder = (list: RecordError[]) => list.slice(0, MAX_ERRORS_LISTED).map(({ index, field, code, message }) => ({ index, field, code, message }));
  const answer: DryRunAnswer = {
    response: 'ok',
    dry_run: true,
    accepted: input.records.length - errors.length,
    rejected: errors.length,
    errors: inOrder(errors),
    ...(warnings.length > 0 ? { warnings: inOrder(warnings) } : {}),
  };
  return { answer, position: null, replayed: false };
}

/**
 * Set (a symbol: never serialised) on an answer given again for an Idempotency-Key: the HTTP layer
 * says so in an `Idempotent-Replayed: true` header; the body is the first answer's, byte for byte.
 */
export const IDEMPOTENT_REPLAY = Symbol('idempotent replay');

function answerOf(h: ImportRunAccepted): ImportAnswer {
  // Errors in one key order whether the header is the one just written or one read back (the log may reorder keys).
  const inOrder = (list: RecordError[]) => list.map(({ index, field, code, message }) => ({ index, field, code, message }));
  return {
    response: 'ok',
    run_id: h.run_id,
    run_url: `/api/runs/${h.run_id}/?wait=30`,
    accepted: h.accepted,
    rejected: h.rejected,
    errors: inOrder(h.errors),
    ...(h.warnings ? { warnings: inOrder(h.warnings) } : {}),
  };
}

/** The run id of a request with an Idempotency-Key: derived from (caller, key), so a retry finds the first run. */
export function keyedRunId(caller: string, key: string): string {
  if (key.length > 255) throw invalidRequest('Idempotency-Key must be at most 255 characters');
  return uuidOf(`${caller}\n${key}`);
}

/**
 * The id of a run's event at `index` (0 the header, then each chunk): a retry of the same run sends the
 * same ids, so the log's idempotence decides whether it was recorded. The body's hash is in it too:
 * another body sent with the same key gets other ids, so it meets the key's conflict (422), never
 * passes for a duplicate of the first, nor shares its personal-data lists.
 */
export function runEventId(runId: string, bodyHash: string | null, index: number): string {
  return uuidOf(`${runId}\n${bodyHash ?? ''}\n${index}`);
}

/** A UUID formatted from the SHA-256 of `text`. */
function uuidOf(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The first answer of a keyed run, or undefined when there is none; 422 when the key came with another body. */
export async function previousAnswer(store: EventStore, runId: string, bodyHash: string) {
  const run = await readRun(store, runId);
  if (!run) return undefined;
  if (run.header.body_hash !== bodyHash) {
    throw unprocessable('This Idempotency-Key was used with a different body; use a new key for a new request');
  }
  return { answer: Object.assign(answerOf(run.header), { [IDEMPOTENT_REPLAY]: true }), position: run.lastPosition, replayed: true };
}

export interface RunStatus {
  run_id: string;
  kind: string;
  state: 'scheduled' | 'completed' | 'failed';
  /** Why a run failed: a read model could not apply some of its events (they are parked). */
  reason?: string;
  received: number;
  accepted: number;
  rejected: number;
  errors: RecordError[];
  warnings: RecordError[];
  created_at: string;
  completed_at: string | null;
  /**
   * Once the run has ended: the log position its read models have passed. A read sent with it
   * (`Min-Position`) sees the run, on a replica or the primary. Null while scheduled.
   */
  log_position: number | null;
}

/** A run's header and the log position its projection must pass for the run to be complete. */
export async function readRun(store: EventStore, runId: string): Promise<{ header: ImportRunAccepted; lastPosition: number } | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(runId)) return undefined;
  // The header and the last chunk only: a big run's chunks are not read to report on it.
  const [first] = await store.readStream(importStream(runId), { limit: 1 });
  if (!first || (first.type !== IMPORT_RUN_ACCEPTED && first.type !== DATA_QUERY_ACCEPTED)) return undefined;
  // Only its position: without data (a chunk's thousand records are neither parsed nor merged with their personal fields).
  const [last] = await store.readStream(importStream(runId), { direction: 'backwards', limit: 1, withDataOf: [] });
  return { header: first.data as ImportRunAccepted, lastPosition: last.position };
}

/** The most records one import request may carry (the spec leaves it open; README "Imports"). */
export const MAX_RECORDS_PER_REQUEST = 50_000;

/**
 * `{<key>: [...]}` or a bare list when allowed → the records; anything else (no body, JSON that is not
 * an object, more than MAX_RECORDS_PER_REQUEST records) is refused.
 */
export function recordsOf(body: unknown, key: string, allowBareList = false): unknown[] {
  if (Array.isArray(body)) {
    if (allowBareList) return atMost(body);
    throw invalidRequest(`The body must be {"${key}": [...]}`);
  }
  if (body === null) throw invalidRequest(`The body must be {"${key}": [...]}, not null`);
  if (typeof body !== 'object') throw invalidRequest(`The body must be {"${key}": [...]}`);
  const list = (body as Record<string, unknown>)[key];
  if (list === null) return [];
  if (list === undefined) {
    if (Object.keys(body as object).length === 0) return [];
    throw invalidRequest(`The body must be {"${key}": [...]}; "${key}" is missing`);
  }
  if (!Array.isArray(list)) throw invalidRequest(`"${key}" must be a list`);
  return atMost(list);
}

function atMost(records: unknown[]): unknown[] {
  if (records.length > MAX_RECORDS_PER_REQUEST) {
    throw new AppError(413, 'payload_too_large', `A request may carry at most ${MAX_RECORDS_PER_REQUEST.toLocaleString('en')} records; this one has ${records.length.toLocaleString('en')}: split it`);
  }
  return records;
}
