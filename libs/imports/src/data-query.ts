import { createHash, randomUUID } from 'node:crypto';
import { WrongExpectedRevisionError, type EventStore } from '#mds/event-store';
import { invalidRequest } from '#mds/platform';
import { coerceList, CoercionError } from './coerce';
import { DATA_QUERY_ACCEPTED, importStream, keyedRunId, previousAnswer, readRun, runEventId, type DataQuery, type ImportRunAccepted } from './import-run';

export const DATA_QUERY_DATATYPES = ['customers', 'products', 'events', 'sales'] as const;

/** Fields a bulk update may not set: identities, and what other fields are computed from. */
const PROTECTED: Record<DataQuery['datatype'], string[]> = {
  customers: ['external_id', 'email', 'phone_number', 'is_forgotten'],
  products: ['external_id', 'language'],
  events: ['id', 'type', 'date', 'customer_id', 'email', 'phone_number', 'customer_token'],
  sales: ['sale_external_id', 'sale_date', 'sale_customer_id', 'sale_email', 'sale_phone_number', 'products', 'sale_total', 'sale_discount', 'sale_shipping', 'sale_currency', 'sale_exchange_rate'],
};
const FIELD = /^[A-Za-z][A-Za-z0-9_-]{0,199}$/;
/** List operations a customers' bulk update takes, as a customer import does (README "Bulk update"). */
const LIST_OPERATIONS = new Set(['tags.add', 'tags.remove', 'mailing_lists.add', 'mailing_lists.remove']);
const MAX_IN = 10_000;

const isScalar = (v: unknown) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/**
 * Checks `{datatype, match, update}`. match: `field: value` (equality; a list means "one of"),
 * `field.in: [values]`, `field.exists: true|false`; at least one condition. update: fields to set
 * ("" removes one), or `is_deleted: true`; identities and computed fields cannot be set.
 * `normalize` lets the datatype's context normalise updated values (a sale state's aliases).
 */
export function validateDataQuery(body: unknown, normalize: (datatype: string, key: string, value: unknown) => unknown = (_d, _k, v) => v): DataQuery {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('The body must be {"datatype": ..., "match": {...}, "update": {...}}');
  const { datatype, match, update, ...rest } = body as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) throw invalidRequest(`Unknown key "${extra.slice(0, 50)}"; the body is {datatype, match, update}`);
  if (typeof datatype !== 'string' || !(DATA_QUERY_DATATYPES as readonly string[]).includes(datatype)) {
    throw invalidRequest(`datatype must be one of ${DATA_QUERY_DATATYPES.join(', ')}`);
  }
  const dt = datatype as DataQuery['datatype'];
  if (typeof match !== 'object' || match === null || Array.isArray(match)) throw invalidRequest('match must be an object of conditions');
  const conditions = Object.entries(match as Record<string, unknown>);
  if (conditions.length === 0) throw invalidRequest('match needs at least one condition (a bulk update of everything is not offered)');
  if (conditions.length > 50) throw invalidRequest('match has more than 50 conditions');
  for (const [key, value] of conditions) {
    const [name, op, more] = key.split('.');
    if (!FIELD.test(name) || more !== undefined || (op !== undefined && op !== 'exists' && op !== 'in')) {
      throw invalidRequest(`match: "${key.slice(0, 50)}" is not <field>, <field>.exists or <field>.in`);
    }
    if (op === 'exists' && typeof value !== 'boolean') throw invalidRequest(`match: ${key} takes true or false`);
    if (op === 'in' || (op === undefined && Array.isArray(value))) {
      if (!Array.isArray(value) || value.length === 0 || value.length > MAX_IN || !value.every(isScalar)) {
        throw invalidRequest(`match: ${key} takes a list of 1 to ${MAX_IN} strings, numbers or booleans`);
      }
    } else if (op === undefined && !isScalar(value)) throw invalidRequest(`match: ${key} takes a string, number, boolean or a list of them`);
  }
  if (typeof update !== 'object' || update === null || Array.isArray(update) || Object.keys(update).length === 0) {
    throw invalidRequest('update must be an object of the fields to set, or {"is_deleted": true}');
  }
  const normalized: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(update as Record<string, unknown>)) {
    if (dt === 'customers' && LIST_OPERATIONS.has(key)) {
      try {
        normalized[key] = coerceList(value);
      } catch (err) {
        if (err instanceof CoercionError) throw invalidRequest(`update: ${key}: ${err.message}`);
        throw err;
      }
      continue;
    }
    if (!FIELD.test(key)) throw invalidRequest(`update: "${key.slice(0, 50)}" is not a field name`);
    if (PROTECTED[dt].includes(key)) throw invalidRequest(`update: ${key} cannot be changed by a bulk update of ${dt}`);
    if (key === 'is_deleted' && value !== true) throw invalidRequest('update: is_deleted can only be set to true (deletion cannot be undone)');
    if (value === null || value === undefined) throw invalidRequest(`update: ${key} needs a value ("" removes the field)`);
    normalized[key] = normalize(dt, key, value);
  }
  return { datatype: dt, match: match as Record<string, unknown>, update: normalized };
}

export interface DataQueryAnswer {
  run_id: string;
  matched: number;
}

/**
 * Appends a bulk update as one `DataQueryAccepted` event (a run of its own, so GET /api/runs/{id}/
 * says when it is applied). `matched` is counted on the read model when accepted; the update itself
 * is applied by the datatype's projection in log order. With an Idempotency-Key a retry gets the first answer.
 */
export async function runDataQuery(
  store: EventStore,
  input: { query: DataQuery; countMatches: (q: DataQuery) => Promise<number>; idempotencyKey?: string; caller: string; tokenId?: string; requestId?: string },
): Promise<{ answer: DataQueryAnswer; position: number }> {
  const bodyHash = input.idempotencyKey ? createHash('sha256').update(JSON.stringify(input.query)).digest('hex') : null;
  const runId = input.idempotencyKey ? keyedRunId(input.caller, input.idempotencyKey) : randomUUID();
  const replay = async () => {
    const first = bodyHash ? await previousAnswer(store, runId, bodyHash) : undefined;
    if (!first) return undefined;
    const run = await readRun(store, runId);
    return { answer: { run_id: runId, matched: run?.header.matched ?? 0 }, position: first.position };
  };
  const earlier = await replay();
  if (earlier) return earlier;
  const matched = await input.countMatches(input.query);
  const header: ImportRunAccepted = {
    run_id: runId,
    kind: 'query',
    received: 1,
    accepted: 1,
    rejected: 0,
    errors: [],
    chunks: 0,
    body_hash: bodyHash,
    idempotency_key: input.idempotencyKey ?? null,
    created_at: new Date().toISOString(),
    query: input.query,
    matched,
  };
  try {
    const result = await store.append(importStream(runId), [{ id: runEventId(runId, bodyHash, 0), type: DATA_QUERY_ACCEPTED, data: header, metadata: { actor: input.caller, token_id: input.tokenId, request_id: input.requestId, run_id: runId } }], {
      expectedRevision: 'no_stream',
    });
    return { answer: { run_id: runId, matched }, position: result.position };
  } catch (err) {
    if (err instanceof WrongExpectedRevisionError) {
      const again = await replay();
      if (again) return again;
    }
    throw err;
  }
}
