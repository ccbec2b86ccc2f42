import * as imports from '#mds/imports';
import {
  RecordProblem,
  reserveIds,
  type FinishedRecords,
  type ImportKind,
  type RecordError,
} from '#mds/imports';
import type { EventStore } from '#mds/event-store';
import type { Settings } from '#mds/settings';
import { BROWSE_FIELDS, BUILT_IN_EVENT_TYPES, EVENT_DELETION_FIELDS, EVENT_FIELDS, EVENT_IDENTIFIERS } from './event.fields';

// Bound once: used through the library's index, each helper would cost a re-export getter call at every use.
const { coerceDateTime, coerceId, coerceList, coerceNumber, coerceString, field, isCompanyField, maxOf, namesOf, normalizePhone, recordObject, assertUsableKey, EMAIL } = imports;

export const EVENTS_IMPORTED = 'EventsImported';

/**
 * An event record's personal fields: the customer's contact details and the customer fields that may
 * accompany an event. They never enter the log (PERSONAL_FIELDS in libs/runtime); customer_id, the
 * shop's own key, does.
 */
export const EVENT_PERSONAL_FIELDS = ['email', 'phone_number', '$phone', 'customer_token', 'first_name', 'last_name', 'street_address', 'zip_code', '$customer_id'] as const;

/**
 * A copy of customer_id kept with an event's personal fields, so forgetting the customer finds them
 * in the personal-data lists when the event names the customer by external id alone ("$" keys are
 * matching aids, never shown). Only on records that carry personal fields: others have nothing to forget.
 */
export const EVENT_CUSTOMER_KEY = '$customer_id';

/** Key of the normalised phone number carried for matching ("$" keys are matching aids, never shown). */
export const EVENT_PHONE_KEY = '$phone';

// The event's fields by kind (event.fields.ts), each taken up to its own limit.
const TEXT_FIELDS = namesOf(EVENT_FIELDS, 'text');
/** Strings the read models index or join by (products linked by ean, sales by sale_id, customers by token): at most LIMITS.id characters. */
const KEY_FIELDS = namesOf(EVENT_FIELDS, 'key');
const LIST_FIELDS = namesOf(EVENT_FIELDS, 'list');
/** The is_deleted values that make a record a deletion. */
const DELETED = EVENT_DELETION_FIELDS.is_deleted.values!;
const DELETION_ID = new RegExp(EVENT_DELETION_FIELDS.id.pattern!);

/** A new event as stored: its fields as coerced, plus the id assigned in the command. */
export type EventRecord = Record<string, unknown> & { type: string; date: string };
/** `{id, is_deleted: true}`: deletes an event by the id retrieval shows. */
export interface EventDeletion {
  id: number;
  is_deleted: true;
}

export interface EventImportDeps {
  store: EventStore;
  /** Which of these event ids exist (deleted or not): deletions of unknown ids are record errors. */
  knownEventIds(ids: number[]): Promise<Set<number>>;
  /** Which of these sale_external_ids a sale has: a shipment naming none is kept with a warning. */
  knownSales(ids: string[]): Promise<{ has(id: string): boolean }>;
  actor: string;
}

export const isDeletion = (r: EventRecord | EventDeletion): r is EventDeletion => r.is_deleted === true;

const required = (name: string, why: string) => new RecordProblem(name, 'required', `${name} is required ${why}`);

function validateEvent(r: Record<string, unknown>, settings: Settings): EventRecord {
  const rawType = field(r, 'type', (v) => coerceString(v, EVENT_FIELDS.type.max));
  if (rawType === undefined || rawType.trim() === '') throw required('type', 'on every event');
  const type = rawType.trim().toUpperCase();
  if (!(BUILT_IN_EVENT_TYPES as readonly string[]).includes(type) && !settings.custom_event_types.includes(type)) {
    throw new RecordProblem('type', 'unknown_event_type', `"${rawType}" is neither a built-in event type nor one of the settings' custom_event_types`);
  }
  const date = field(r, 'date', (v) => coerceDateTime(v, settings.timezone));
  if (date === undefined) throw required('date', 'on every event');
  const out: EventRecord = { type, date };
  for (const [key, value] of Object.entries(r)) {
    if (key === 'type' || key === 'date' || value === null || value === undefined) continue;
    assertUsableKey(key);
    if (key === 'id' || key === 'is_deleted') throw new RecordProblem(key, 'invalid_field', `${key} is only sent to delete an event: {"id": <id>, "is_deleted": true}`);
    let v: unknown;
    if (key === 'customer_id') v = field(r, key, coerceId);
    else if (key === 'email') v = field(r, key, (x) => coerceString(x, maxOf(EVENT_FIELDS.email)))?.trim().toLowerCase() || undefined;
    else if (key === 'phone_number') {
      const phone = field(r, key, (x) => coerceString(x, maxOf(EVENT_FIELDS.phone_number)))?.trim();
      if (phone) out[EVENT_PHONE_KEY] = normalizePhone(phone, settings.default_country) ?? phone;
      v = phone || undefined;
    } else if (TEXT_FIELDS.has(key) || KEY_FIELDS.has(key)) v = field(r, key, (x) => coerceString(x, maxOf(EVENT_FIELDS[key])))?.trim() || undefined;
    else if (LIST_FIELDS.has(key)) v = field(r, key, coerceList);
    else if (key === 'sentiment_value') {
      const n = field(r, key, coerceNumber);
      if (n !== undefined && !Number.isSafeInteger(n)) throw new RecordProblem(key, 'invalid_integer', `sentiment_value must be a whole number, got ${n}`);
      v = n;
    } else {
      isCompanyField(key, settings); // checks a company key; any other key is kept as sent
      v = value;
    }
    if (v !== undefined) out[key] = v;
  }
  if (typeof out.email === 'string' && !EMAIL.test(out.email)) throw new RecordProblem('email', 'invalid_email', `"${out.email}" is not an e-mail address`);
  if (out.customer_id !== undefined && (EVENT_PERSONAL_FIELDS.some((k) => out[k] !== undefined) || settings.personal_company_fields.some((k) => out[k] !== undefined))) {
    out[EVENT_CUSTOMER_KEY] = out.customer_id;
  }
  if (!EVENT_IDENTIFIERS.some((k) => out[k] !== undefined)) {
    throw new RecordProblem(null, 'missing_identifier', 'an event needs one of customer_id, phone_number, email, customer_token');
  }
  const lists = out.mailing_lists as string[] | undefined;
  switch (type) {
    case 'BROWSE':
      if (!BROWSE_FIELDS.some((k) => out[k] !== undefined)) throw new RecordProblem(null, 'required', `BROWSE needs one of ${BROWSE_FIELDS.join(', ')}`);
      break;
    case 'MAIL_SUBSCRIBE':
    case 'MAIL_UNSUBSCRIBE':
      if (!lists || lists.length === 0) throw required('mailing_lists', `for ${type} (a list of mailing-list ids${type === 'MAIL_UNSUBSCRIBE' ? '; ["_"] leaves all lists' : ''})`);
      break;
    case 'ORDER_SHIPPED':
      if (out.tracking_number === undefined) throw required('tracking_number', 'for ORDER_SHIPPED');
      break;
    case 'BASKET_ADD':
      if (out.product_id === undefined && out.product_ean === undefined) throw required('product_id', 'for BASKET_ADD (or product_ean)');
      break;
    case 'SENTIMENT':
      if (out.sentiment_value === undefined) throw required('sentiment_value', 'for SENTIMENT (a whole number, usually 0 to 10)');
      break;
  }
  return out;
}

function validateDeletion(r: Record<string, unknown>): EventDeletion {
  const id = r.id;
  const n = typeof id === 'string' && DELETION_ID.test(id) ? Number(id) : id;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw new RecordProblem('id', 'invalid_id', 'id must be an event id from data retrieval (a positive whole number)');
  const extra = Object.keys(r).find((k) => !Object.hasOwn(EVENT_DELETION_FIELDS, k));
  if (extra) throw new RecordProblem(extra, 'invalid_field', 'a deletion is {"id": <id>, "is_deleted": true} and nothing else');
  return { id: n, is_deleted: true };
}

/**
 * An ORDER_SHIPPED event's sale_id names the transaction it ships (its sale_external_id): one that no
 * sale has is kept, and linked once such a sale is imported (links are made when read), with a warning.
 */
async function unknownSales(accepted: Array<{ index: number; record: EventRecord | EventDeletion }>, deps: EventImportDeps): Promise<RecordError[]> {
  const shipments = accepted.flatMap((a) => (!isDeletion(a.record) && a.record.type === 'ORDER_SHIPPED' && typeof a.record.sale_id === 'string' ? [{ index: a.index, saleId: a.record.sale_id }] : []));
  if (shipments.length === 0) return [];
  const known = await deps.knownSales([...new Set(shipments.map((s) => s.saleId))]);
  return shipments
    .filter((s) => !known.has(s.saleId))
    .map((s) => ({ index: s.index, field: 'sale_id', code: 'unknown_sale', message: `no sale has sale_external_id "${s.saleId}" (yet): the shipment is kept, and linked to that sale once it is imported` }));
}

/**
 * Customer events as plugins send them. A record is either a new event (type, date, a customer
 * identifier, the type's required fields; company fields and other keys kept) or a deletion
 * `{id, is_deleted: true}`. New events get their integer `id` here, in the command, from the
 * `sequence-events` stream, so the id stored in the log is the one retrieval shows after any rebuild.
 */
export function eventImport(settings: Settings, deps: EventImportDeps): ImportKind<EventRecord | EventDeletion> {
  return {
    kind: 'events',
    chunkEventType: EVENTS_IMPORTED,
    personalFields: settings.personal_company_fields,
    validate(raw) {
      const r = recordObject(raw, 'an event');
      if (DELETED.includes(r.is_deleted)) return validateDeletion(r);
      return validateEvent(r, settings);
    },
    async finish(accepted, request): Promise<FinishedRecords> {
      const errors: RecordError[] = [];
      const deletionIds = accepted.flatMap((a) => (isDeletion(a.record) ? [a.record.id] : []));
      const known = deletionIds.length > 0 ? await deps.knownEventIds([...new Set(deletionIds)]) : new Set<number>();
      const kept = accepted.filter((a) => {
        if (!isDeletion(a.record) || known.has(a.record.id)) return true;
        errors.push({ index: a.index, field: 'id', code: 'not_found', message: `no event has id ${a.record.id}` });
        return false;
      });
      const warnings = await unknownSales(kept, deps);
      const newCount = kept.filter((a) => !isDeletion(a.record)).length;
      // A dry run reserves no ids: its records are never stored.
      let next = newCount > 0 && !request.dryRun ? await reserveIds(deps.store, 'events', newCount, deps.actor) : 0;
      const records = kept.map((a) => (isDeletion(a.record) ? a.record : { id: next++, ...a.record }));
      return { records, errors, warnings };
    },
  };
}
