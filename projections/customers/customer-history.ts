import { customerEffect, EVENTS_IMPORTED, isDeletion, type EventDeletion, type EventRecord } from '#mds/activity';
import { CUSTOMERS_IMPORTED, customerMergeModel as model } from '#mds/customers';
import type { RecordedEvent } from '#mds/event-store';
import { readEventsAt, type ReadDeps } from '../runtime/read-side';
import { dataQueryOf } from '../runtime/data-query-sql';
import { ORD_SPAN } from './merge/merge.sql';
import { answerTimestamp } from '#mds/platform';

/** What a change did to its customer, as the history names it. */
export type ChangeType = 'import' | 'subscription' | 'bulk_update' | 'deletion' | 'forgetting';

export interface CustomerChange {
  position: number;
  at: string;
  actor: string | null;
  run_id: string | null;
  type: ChangeType;
  /** The record (or the bulk update's `update`) as it is in the log. */
  change: Record<string, unknown>;
  /** The customer after it, as retrieval shows customers. */
  state_after: Record<string, unknown>;
}

export interface CustomerHistory {
  changes: CustomerChange[];
  /** The customer after the last change listed (null when there is none). */
  customer: Record<string, unknown> | null;
  /** How many changes the customer has up to `asOf` (or in all), before paging. */
  total: number;
}

const VIEW_DEFAULTS = { can_email: false, can_post: false, can_profile: false, can_push: false, can_sms: false };

/** A customer as retrieval shows it: the can_* defaults filled in, its id and updated_at (unless not `stamped`); a forgotten one is only the marker. */
export function customerView(c: model.Customer, options: { stamped?: boolean } = { stamped: true }): Record<string, unknown> {
  if (c.is_forgotten) return { is_forgotten: true };
  const stamps = options.stamped ? { id: c.customer_id, updated_at: answerTimestamp(c.updated_at) } : {};
  return { ...VIEW_DEFAULTS, ...c.data, ...stamps, ...(c.is_deleted ? { is_deleted: true } : {}) };
}

/** One change of a customer as the fold meets it: the log event, the record's place in it, what it did, and the customer before and after. */
export interface FoldedChange {
  event: RecordedEvent;
  n: number;
  step: CustomerStep;
  before: model.Customer | undefined;
  after: model.Customer;
}

/**
 * Where a customer's first change is: the record that made the customer, which its id names
 * (ORD_OF: position × ORD_SPAN + n). customer_changes lists every change after it; `id` is SQL for
 * the id. `madeIn(position)`: SQL true when the customer was made by a record of the chunk there.
 */
export const CREATION = (id: string) => ({
  position: `(${id} / ${ORD_SPAN})`,
  n: `(${id} % ${ORD_SPAN})::int`,
  madeIn: (position: string) => `${id} > ${position} * ${ORD_SPAN} AND ${id} < (${position} + 1) * ${ORD_SPAN}`,
});

/**
 * SQL of every change of the customers `ids` (SQL giving a column of customer ids) as rows
 * (customer_id, position, n, ext): the first, which each id names, with the external id it was sent
 * with (created_ext), and those customer_changes lists.
 */
export function changesOf(ids: string): string {
  const creation = CREATION('c.customer_id');
  return `SELECT c.customer_id, ${creation.position} AS position, ${creation.n} AS n, c.created_ext AS ext FROM customers c WHERE c.customer_id IN (${ids})
    UNION ALL SELECT ch.customer_id, ch.position, ch.n, ch.ext FROM customer_changes ch WHERE ch.customer_id IN (${ids})`;
}

/**
 * One customer's changes (by external id), read back from the log and folded: the customers
 * projection lists where each change is (changesOf: the chunk's position and the record in it), the
 * events are read at those positions, and the merge model (libs/customers) folds them, so each
 * `after` is what the rules make of the change, and the last one equals the read model's row.
 * Changes after `asOf` are left out. Undefined when no customer has the external id now (never had
 * it, or forgotten). The history, the consent history and the export are views of this.
 */
export async function foldCustomer(read: ReadDeps, externalId: string, options: { asOf?: string } = {}): Promise<{ customerId: number; changes: FoldedChange[] } | undefined> {
  const found = await read.pool.query<{ customer_id: string }>(`SELECT customer_id FROM customers WHERE external_id = $1 AND NOT is_forgotten`, [externalId]);
  if (found.rows.length === 0) return undefined;
  const customerId = Number(found.rows[0].customer_id);
  const { rows } = await read.pool.query<{ position: string; n: number }>(`SELECT position, n FROM (${changesOf('SELECT $1::bigint')}) c ORDER BY position, n`, [customerId]);
  const places = rows.map((r) => ({ position: Number(r.position), n: r.n }));
  const events = await readEventsAt(read.store, places.map((p) => p.position));
  const asOf = options.asOf === undefined ? undefined : Date.parse(options.asOf);

  const changes: FoldedChange[] = [];
  let customer: model.Customer | undefined;
  for (const place of places) {
    const event = events.get(place.position);
    if (!event) throw new Error(`customer_changes names position ${place.position}, which the log does not have`);
    if (asOf !== undefined && Date.parse(event.createdAt) > asOf) break;
    const step = changeOf(event, place.n);
    if (!step) continue;
    const before = customer;
    customer = applyChange(customer, step, customerId, event);
    if (!customer) continue;
    changes.push({ event, n: place.n, step, before, after: customer });
  }
  return { customerId, changes };
}

/** Where a change is and what brought it: its log position, time, actor and run. */
export const changePlace = (event: RecordedEvent) => ({
  position: event.position,
  at: answerTimestamp(event.createdAt),
  actor: typeof event.metadata.actor === 'string' ? event.metadata.actor : null,
  run_id: typeof event.metadata.run_id === 'string' ? event.metadata.run_id : null,
});

/**
 * One customer's history (by external id): every change with the record as sent and the customer
 * after it (foldCustomer); `from`/`limit` page the list (the fold always starts at the first change).
 */
export async function customerHistory(
  read: ReadDeps,
  externalId: string,
  options: { asOf?: string; from?: number; limit?: number } = {},
): Promise<CustomerHistory | undefined> {
  const folded = await foldCustomer(read, externalId, options);
  if (!folded) return undefined;
  const changes: CustomerChange[] = folded.changes.map((c) => ({
    ...changePlace(c.event),
    type: c.step.type,
    change: withoutMatchingAids(c.step.record),
    state_after: customerView(c.after),
  }));
  const last = folded.changes.at(-1)?.after;
  const from = options.from ?? 0;
  const page = changes.slice(from, options.limit === undefined ? undefined : from + options.limit);
  return { changes: page, customer: last ? customerView(last) : null, total: changes.length };
}

/** Records may carry the import's matching aids (`$phone`, `$token`, `$no_create`): not part of what was sent. */
const withoutMatchingAids = (record: model.CustomerPatch) => Object.fromEntries(Object.entries(record).filter(([k]) => !k.startsWith('$')));

/** The record a change applies: the n-th of an import chunk (from 1), or a bulk update's `update` (n 0). */
export function changeOf(event: RecordedEvent, n: number): CustomerStep | undefined {
  if (event.type === CUSTOMERS_IMPORTED || event.type === EVENTS_IMPORTED) return recordStep(event.type, (event.data as { records: unknown[] }).records[n - 1]);
  const query = dataQueryOf(event, 'customers');
  if (!query) return undefined;
  const update = query.update as model.CustomerPatch;
  return { kind: 'update', type: update.is_deleted !== undefined ? 'deletion' : 'bulk_update', record: update };
}

/** What a record of a customer or event import chunk does to its customer (undefined: nothing). */
export function recordStep(type: string, record: unknown): CustomerStep | undefined {
  if (!record) return undefined;
  if (type === CUSTOMERS_IMPORTED) {
    const r = record as model.CustomerPatch;
    return { kind: 'record', type: r.is_forgotten === true ? 'forgetting' : r.is_deleted === true ? 'deletion' : 'import', record: r };
  }
  if (type !== EVENTS_IMPORTED || isDeletion(record as EventRecord | EventDeletion)) return undefined;
  const effect = customerEffect(record as EventRecord) as model.CustomerPatch | undefined;
  return effect ? { kind: 'record', type: 'subscription', record: effect } : undefined;
}

export type CustomerStep = { kind: 'record' | 'update'; type: ChangeType; record: model.CustomerPatch };

/** A customer (its id `customerId`; none yet) after one of its changes, by the merge model (`event`: its position and time). */
export function applyChange(customer: model.Customer | undefined, step: CustomerStep, customerId: number, event: Pick<RecordedEvent, 'position' | 'createdAt'>): model.Customer | undefined {
  const at = { ord: customerId, position: event.position, at: event.createdAt };
  return step.kind === 'update' ? (customer ? model.updateCustomer(customer, step.record, at) : customer) : model.applyToCustomer(customer, step.record, at);
}
