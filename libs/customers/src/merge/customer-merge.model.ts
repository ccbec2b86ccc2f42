import { createHash } from 'node:crypto';
import { CHANGE_ONLY_FIELDS } from '../customers.events';

/**
 * THE CUSTOMER MERGE RULES, stated once. The customers projection applies them in sets (waves of
 * SQL over a page of records, projections/customers/merge/); this model applies them one record at
 * a time, and the tests hold the two to the same customers.
 *
 * A record is a customer import record as coerced (libs/customers customer-import.ts: `$phone` is
 * the phone normalised for matching), or the patch a subscription event makes (libs/activity
 * customer-effects.ts: `$token` its customer_token, `$no_create` for an unsubscription or a
 * subscription without the contact). Records apply in log order; each, in turn:
 *
 * 1. Forgotten stays forgotten, and nothing links to it: a forgotten customer has no identifiers
 *    left, so a later record naming one it had finds nothing and starts a new customer (README
 *    "Forgetting"). Their hashes are remembered with whose they were (for sales and campaign events
 *    already counted as theirs), never to drop or match records.
 * 2. It finds its customer, in this order:
 *    - by external_id;
 *    - without an external_id: by phone, then by e-mail (case-insensitive), then — for an event's
 *      patch only — by the customer_token against customers' cb_token; the oldest customer (lowest
 *      id) when several match;
 *    - with an external_id no customer has: by phone, then e-mail, among customers without an
 *      external_id only (a guest becomes that customer); an external_id is never taken over.
 * 3. Forgetting (`is_forgotten: true`) remembers the hashes of the record's identifiers and of the
 *    customer's, with whose they were; the customer's data becomes `{is_forgotten: true}` and its
 *    identifiers go. A forgotten customer is never changed again.
 * 4. Otherwise it patches the customer: only the keys sent change; `""` removes a key; `tags` and
 *    `mailing_lists` replace the list, `.add` appends (in order, without repeats) and `.remove`
 *    removes, after the replacement; `is_deleted` is for good; `$` keys are matching aids, never kept.
 *    The phone column follows `phone_number` when it is sent; the e-mail column is the merged
 *    e-mail, lower-cased.
 * 5. No customer found: a new one, unless the record may not create one (`$no_create`), with the
 *    record's id in the log (`ord` = position × 10000 + its place in its chunk), so ids survive rebuilds.
 *
 * A bulk update (`POST /api/data/query/`) patches the customers it matched by rule 4 without `is_deleted`,
 * which it sets for good; it never changes identifiers.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type CustomerPatch = Record<string, Json>;

export interface Customer {
  customer_id: number;
  external_id: string | null;
  phone: string | null;
  email: string | null;
  data: Record<string, Json>;
  is_deleted: boolean;
  is_forgotten: boolean;
  created_at: string;
  updated_at: string;
  updated_position: number;
}

export interface ForgottenIdentifier {
  kind: 'external_id' | 'phone' | 'email';
  hash: string;
  customer_id: number;
}

/** The customers read model and the identifiers it must not let come back. */
export interface CustomersState {
  customers: Map<number, Customer>;
  /** By `${kind}:${hash}`. */
  forgotten: Map<string, ForgottenIdentifier>;
}

/** Where a record is in the log: its id-to-be, the log position and time of its chunk. */
export interface RecordPlace {
  ord: number;
  position: number;
  at: string;
}

const MATCHING_AIDS = ['$phone', '$token', '$no_create'];
const LIST_OPERATIONS: Array<[string, string, string]> = [
  ['tags', 'tags.add', 'tags.remove'],
  ['mailing_lists', 'mailing_lists.add', 'mailing_lists.remove'],
];

export const emptyCustomers = (): CustomersState => ({ customers: new Map(), forgotten: new Map() });

export const identifierHash = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

const text = (v: Json | undefined): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null);

/** The identifiers a record is matched by. */
export function identifiersOf(record: CustomerPatch) {
  return {
    externalId: text(record.external_id),
    phone: text(record.$phone),
    email: text(record.email)?.toLowerCase() ?? null,
    /** An event's customer_token (only it matches cb_token), or the record's cb_token (which matches nothing). */
    token: text(record.$token) ?? text(record.cb_token),
  };
}

/** Whether any value of the record is "" (the SQL asks `$.* ? (@ == "")`, which looks into lists too). */
function sendsEmpty(record: CustomerPatch): boolean {
  return Object.values(record).some((v) => v === '' || (Array.isArray(v) && v.includes('')));
}

/** A list after replacing it (when sent), appending, then removing: first-seen order, no repeats. */
export function listUpdate(current: Json | undefined, replacement: Json | undefined, additions: Json | undefined, removals: Json | undefined): string[] {
  const asList = (v: Json | undefined) => (Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))) : []);
  const removed = new Set(asList(removals));
  const out: string[] = [];
  for (const v of [...asList(replacement ?? current), ...asList(additions)]) if (!removed.has(v) && !out.includes(v)) out.push(v);
  return out;
}

/** Rule 4 on data: the patch merged over `current`. */
export function mergePatch(current: Record<string, Json>, sent: CustomerPatch): Record<string, Json> {
  const patch = withoutChangeOnly(sent);
  const needsMerge = LIST_OPERATIONS.some(([, add, remove]) => add in patch || remove in patch) || sendsEmpty(patch);
  const merged: Record<string, Json> = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (MATCHING_AIDS.includes(k) || (needsMerge && (k === '$merge' || LIST_OPERATIONS.some(([, add, remove]) => k === add || k === remove)))) continue;
    merged[k] = v;
  }
  if (!needsMerge) return merged;
  for (const [list, add, remove] of LIST_OPERATIONS) {
    if (add in patch || remove in patch) merged[list] = listUpdate(current[list], patch[list], patch[add], patch[remove]);
  }
  for (const [k, v] of Object.entries(merged)) if (v === '') delete merged[k];
  return merged;
}

/** The record less the keys about the change alone (CHANGE_ONLY_FIELDS). */
function withoutChangeOnly(record: CustomerPatch): CustomerPatch {
  if (!CHANGE_ONLY_FIELDS.some((k) => k in record)) return record;
  const out = { ...record };
  for (const k of CHANGE_ONLY_FIELDS) delete out[k];
  return out;
}

/** Rule 2: the customer a record applies to, or undefined. */
export function findCustomer(state: CustomersState, record: CustomerPatch): Customer | undefined {
  const { externalId, phone, email, token } = identifiersOf(record);
  const all = [...state.customers.values()];
  const oldest = (match: (c: Customer) => boolean) => all.filter(match).sort((a, b) => a.customer_id - b.customer_id)[0];
  if (externalId !== null) {
    const byId = all.find((c) => c.external_id === externalId);
    if (byId) return byId;
    return (phone !== null ? oldest((c) => c.external_id === null && c.phone === phone) : undefined) ?? (email !== null ? oldest((c) => c.external_id === null && c.email === email) : undefined);
  }
  return (
    (phone !== null ? oldest((c) => c.phone === phone) : undefined) ??
    (email !== null ? oldest((c) => c.email === email) : undefined) ??
    (token !== null && '$token' in record ? oldest((c) => c.data.cb_token === token) : undefined)
  );
}

/** Rules 1 to 5 for one record: the state after it (the given state is not changed). */
export function applyCustomerRecord(state: CustomersState, record: CustomerPatch, place: RecordPlace): CustomersState {
  const { externalId, phone, email } = identifiersOf(record);
  const next: CustomersState = { customers: new Map(state.customers), forgotten: new Map(state.forgotten) };
  const target = findCustomer(state, record);
  const forget = record.is_forgotten === true;
  if (forget) {
    const whose = target?.customer_id ?? place.ord;
    const ids: Array<[ForgottenIdentifier['kind'], string | null]> = [
      ['external_id', externalId], ['phone', phone], ['email', email],
      ['external_id', target?.external_id ?? null], ['phone', target?.phone ?? null], ['email', target?.email ?? null],
    ];
    for (const [kind, value] of ids) {
      if (value === null) continue;
      const key = `${kind}:${identifierHash(value)}`;
      if (!next.forgotten.has(key)) next.forgotten.set(key, { kind, hash: identifierHash(value), customer_id: whose });
    }
  }
  if (target?.is_forgotten) return next;
  if (!target && record.$no_create !== undefined) return next;
  const changed = applyToCustomer(target, record, place);
  next.customers.set(changed.customer_id, changed);
  return next;
}

/**
 * Rules 3 to 5 on the customer a record found (or none: a new one): the customer after it. What a
 * customer's history shows after each change; the forgotten identifiers are applyCustomerRecord's.
 */
export function applyToCustomer(target: Customer | undefined, record: CustomerPatch, place: RecordPlace): Customer {
  const { phone } = identifiersOf(record);
  const forget = record.is_forgotten === true;
  const deleted = record.is_deleted === true;
  if (target) {
    const merged = mergePatch(target.data, record);
    return {
      ...target,
      data: forget ? { is_forgotten: true } : merged,
      external_id: forget ? null : text(merged.external_id),
      phone: forget ? null : 'phone_number' in record ? phone : target.phone,
      email: forget ? null : (text(merged.email)?.toLowerCase() ?? null),
      is_deleted: target.is_deleted || deleted,
      is_forgotten: forget,
      updated_at: place.at,
      updated_position: place.position,
    };
  }
  const data = mergePatch({}, record);
  return {
    customer_id: place.ord,
    external_id: forget ? null : text(data.external_id),
    phone: forget ? null : phone,
    email: forget ? null : (text(data.email)?.toLowerCase() ?? null),
    data: forget ? { is_forgotten: true } : data,
    is_deleted: deleted,
    is_forgotten: forget,
    created_at: place.at,
    updated_at: place.at,
    updated_position: place.position,
  };
}

/** A bulk update of the customers `ids` (those its match found): rule 4 without identifiers; is_deleted for good. */
export function applyCustomerUpdate(state: CustomersState, ids: number[], update: CustomerPatch, place: Omit<RecordPlace, 'ord'>): CustomersState {
  const next: CustomersState = { customers: new Map(state.customers), forgotten: state.forgotten };
  for (const id of ids) {
    const c = next.customers.get(id);
    if (!c) continue;
    next.customers.set(id, updateCustomer(c, update, place));
  }
  return next;
}

/** A bulk update on one customer (its data patched, never its identifiers; is_deleted for good). */
export function updateCustomer(customer: Customer, update: CustomerPatch, place: Omit<RecordPlace, 'ord'>): Customer {
  const { is_deleted: deleted, ...patch } = update;
  return { ...customer, data: mergePatch(customer.data, patch), is_deleted: customer.is_deleted || deleted !== undefined, updated_at: place.at, updated_position: place.position };
}
