import type { EventStore } from '#mds/event-store';
import { answerTimestamp, AppError, fixTimestampsInJson } from '#mds/platform';
import { eventViewSql } from '../events/events.queries';
import type { ReadDeps } from '../runtime/read-side';
import { timestampSql } from '../runtime/timestamp-sql';
import { saleViewSql } from '../sales/sales.queries';
import { consentChange, type ConsentChange } from './customer-consent';
import { changePlace, customerView, foldCustomer } from './customer-history';

/** Records read and written a page at a time: what an export holds in memory while it streams. */
export const EXPORT_PAGE = 1000;
/** The most records (consent changes, events, sales, campaign events, messages) a JSON export holds; NDJSON has no cap. */
export const EXPORT_JSON_MAX_RECORDS = 10_000;

/** The run that brought a record in (null for a message posted to a datatarget: a post is no run), and when it was logged. */
export interface ExportRun {
  run_id: string | null;
  at: string | null;
}

export type CustomerExportSection = 'events' | 'sales' | 'campaign_events' | 'messages';

/** One customer's data, opened: what the fold gives at once, the rest read page by page by `items`. */
export interface CustomerExport {
  customerId: number;
  externalId: string;
  /** The customer as retrieval shows it (deleted ones too, with `is_deleted`), and every change that made it: where, when, which run. */
  customer: { record: Record<string, unknown>; changes: Array<{ position: number; at: string; run_id: string | null; type: string }> };
  consent: ConsentChange[];
  /** Events, sales, campaign events, then datatarget messages, each `{record, run}` (messages: `{datatarget_id, message_number, message, run}`). */
  items(): AsyncGenerator<[CustomerExportSection, Record<string, unknown>]>;
}

/** The identifiers any of the customer's records held, as each read model keeps them. */
interface Identifiers {
  exts: string[];
  /** Lower-cased. */
  emails: string[];
  /** As sent and normalised (`$phone`). */
  phones: string[];
  tokens: string[];
  /** Every one of them, and the e-mails as sent: what a posted message may carry. */
  values: string[];
}

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

/**
 * One customer's data (by external id) for an export, or undefined when no customer has it now
 * (never had it, or forgotten). The customer, its changes and consent history come from its records
 * in the log (foldCustomer); events, sales and datasync messages are those naming any identifier the
 * customer's records held (external id, e-mail, phone, token: as retrieval's `?customer=` links
 * events); campaign events those counted for the customer (their person); posted datatarget messages
 * those with one of these identifiers as a value anywhere in them (scanned: the service does not know
 * their structure). Each comes with the run that brought it in.
 */
export async function openCustomerExport(read: ReadDeps, externalId: string): Promise<CustomerExport | undefined> {
  const folded = await foldCustomer(read, externalId);
  const last = folded?.changes.at(-1)?.after;
  if (!folded || !last) return undefined;
  const ids: Identifiers = { exts: [], emails: [], phones: [], tokens: [], values: [] };
  const add = (list: string[], v: string | undefined) => v !== undefined && !list.includes(v) && list.push(v);
  for (const { step } of folded.changes) {
    const r = step.record;
    add(ids.exts, text(r.external_id));
    add(ids.emails, text(r.email)?.toLowerCase());
    add(ids.phones, text(r.phone_number));
    add(ids.phones, text(r.$phone));
    add(ids.tokens, text(r.cb_token));
    add(ids.tokens, text(r.$token));
    add(ids.values, text(r.email));
  }
  for (const v of [...ids.exts, ...ids.emails, ...ids.phones, ...ids.tokens]) add(ids.values, v);
  const customerId = folded.customerId;
  return {
    customerId,
    externalId,
    customer: { record: customerView(last), changes: folded.changes.map((c) => ({ ...changePlace(c.event), type: c.step.type })) },
    consent: folded.changes.map(consentChange).filter((c): c is ConsentChange => c !== undefined),
    items: () => exportItems(read, customerId, ids),
  };
}

/**
 * Not a record of a forgotten person: a later customer given their external id (the shop's key, kept)
 * is linked to the events and sales naming it, which retrieval shows as `is_forgotten`; those are not
 * this customer's data.
 */
const ofTheLiving = (row: { record: Record<string, unknown> }) => row.record.is_forgotten !== true;

async function* exportItems(read: ReadDeps, customerId: number, ids: Identifiers): AsyncGenerator<[CustomerExportSection, Record<string, unknown>]> {
  const { pool, store } = read;
  const named = [ids.exts, ids.emails, ids.phones, ids.tokens];
  // Events and sales: their keys first (a list of ids), then the records a page at a time in key order.
  const { rows: eventIds } = await pool.query<{ id: string }>(
    `SELECT id FROM customer_events WHERE customer_external_id = ANY ($1) OR email = ANY ($2) OR phone = ANY ($3) OR customer_token = ANY ($4) ORDER BY id`,
    named,
  );
  for (let i = 0; i < eventIds.length; i += EXPORT_PAGE) {
    const { rows } = await pool.query<{ record: Record<string, unknown>; position: string }>(
      `SELECT ${eventViewSql('e')} || CASE WHEN e.is_deleted THEN '{"is_deleted": true}'::jsonb ELSE '{}'::jsonb END AS record, e.position
         FROM customer_events e WHERE e.id = ANY ($1::bigint[]) ORDER BY e.id`,
      [eventIds.slice(i, i + EXPORT_PAGE).map((r) => r.id)],
    );
    yield* withRuns(store, 'events', rows.filter(ofTheLiving));
  }
  const { rows: saleIds } = await pool.query<{ id: string }>(
    `SELECT sale_external_id AS id FROM sales WHERE customer_external_id = ANY ($1) OR email = ANY ($2) OR phone = ANY ($3) ORDER BY sale_external_id`,
    named.slice(0, 3),
  );
  for (let i = 0; i < saleIds.length; i += EXPORT_PAGE) {
    const { rows } = await pool.query<{ record: Record<string, unknown>; position: string | null }>(
      `SELECT ${saleViewSql('s')} || CASE WHEN s.is_deleted THEN '{"is_deleted": true}'::jsonb ELSE '{}'::jsonb END AS record, s.position
         FROM sales s WHERE s.sale_external_id = ANY ($1::text[]) ORDER BY s.sale_external_id`,
      [saleIds.slice(i, i + EXPORT_PAGE).map((r) => r.id)],
    );
    yield* withRuns(store, 'sales', rows.filter(ofTheLiving));
  }
  // Campaign events counted for the customer: keyset pages over the person's events.
  for (let after: string[] | null = ['', '', '', '-infinity']; after; ) {
    const { rows }: { rows: Array<{ record: Record<string, unknown>; position: string | null; k: string[] }> } = await pool.query(
      `SELECT jsonb_strip_nulls(jsonb_build_object('campaign_key', campaign_key, 'type', type, 'date', ${timestampSql('at')}, 'customer_id', ext,
                'email', email, 'phone_number', phone, 'customer_token', token)) AS record, position,
              ARRAY[campaign_key, type, identity, at::text] AS k
         FROM campaign_events WHERE person = $1 AND (campaign_key, type, identity, at) > ($2, $3, $4, $5::timestamptz)
        ORDER BY campaign_key, type, identity, at LIMIT ${EXPORT_PAGE}`,
      [`c${customerId}`, ...after],
    );
    yield* withRuns(store, 'campaign_events', rows);
    after = rows.length === EXPORT_PAGE ? rows[rows.length - 1].k : null;
  }
  yield* datasyncMessages(read, ids);
  yield* postedMessages(read, ids);
}

/**
 * Datasync messages whose change names one of the identifiers (a message keeps no customer id: its
 * change is the record after a change, by datatype). One pass over every datasync message, in pages.
 */
async function* datasyncMessages(read: ReadDeps, ids: Identifiers): AsyncGenerator<[CustomerExportSection, Record<string, unknown>]> {
  const c = `m.message->'change'`;
  const field = (...keys: string[]) => `coalesce(${keys.flatMap((k) => [`${c}->>'${k}'`, `${c}->'fields'->>'${k}'`]).join(', ')})`;
  for (let after: [string, string] | null = ['', '0']; after; ) {
    const { rows }: { rows: Array<{ datatarget_id: string; message_number: string; message: unknown; after_update: string }> } = await read.pool.query(
      `SELECT m.datatarget_id, m.message_number, m.message, m.after_update FROM datasync_messages m
        WHERE (m.datatarget_id, m.message_number) > ($5, $6::bigint) AND m.message->>'datatype' IN ('customers', 'events', 'sales')
          -- A forgetting, or a change with redaction markers, is a forgotten person's (whose external id a later customer was given).
          AND NOT m.message->'change' @> '{"is_forgotten": true}' AND NOT jsonb_path_exists(m.message, 'strict $.change.** ? (@ starts with "[forgotten ")') AND (
              ${field('external_id', 'customer_id', 'sale_customer_id')} = ANY ($1)
           OR lower(${field('email', 'sale_email')}) = ANY ($2)
           OR ${field('phone_number', 'sale_phone_number')} = ANY ($3)
           OR ${field('customer_token', 'cb_token')} = ANY ($4))
        ORDER BY m.datatarget_id, m.message_number LIMIT ${EXPORT_PAGE}`,
      [ids.exts, ids.emails, ids.phones, ids.tokens, ...after],
    );
    const runs = await runsAt(read.store, rows.map((r) => Number(r.after_update)));
    for (const r of rows) {
      yield ['messages', { datatarget_id: r.datatarget_id, message_number: Number(r.message_number), message: r.message, run: runs.get(Number(r.after_update)) ?? null }];
    }
    after = rows.length === EXPORT_PAGE ? [rows[rows.length - 1].datatarget_id, rows[rows.length - 1].message_number] : null;
  }
}

/** Messages clients posted to `messages` datatargets with one of the identifiers as a value anywhere in them: a scan of them all. */
async function* postedMessages(read: ReadDeps, ids: Identifiers): AsyncGenerator<[CustomerExportSection, Record<string, unknown>]> {
  if (ids.values.length === 0) return;
  for (let after: [string, string] | null = ['', '0']; after; ) {
    const { rows }: { rows: Array<{ datatarget_id: string; message_number: string; message: unknown; posted_at: string | null }> } = await read.pool.query(
      `SELECT m.datatarget_id, m.message_number, m.message,
              (SELECT ${timestampSql('p.posted_at')} FROM datatarget_posts p WHERE p.datatarget_id = m.datatarget_id AND p.first_message_number <= m.message_number
                ORDER BY p.first_message_number DESC LIMIT 1) AS posted_at
         FROM datatarget_messages m
        WHERE (m.datatarget_id, m.message_number) > ($2, $3::bigint)
          AND jsonb_path_exists(m.message, 'strict $.** ? (@ == $ids[*])', jsonb_build_object('ids', $1::jsonb))
        ORDER BY m.datatarget_id, m.message_number LIMIT ${EXPORT_PAGE}`,
      [JSON.stringify(ids.values), ...after],
    );
    for (const r of rows) {
      yield ['messages', { datatarget_id: r.datatarget_id, message_number: Number(r.message_number), message: r.message, run: { run_id: null, at: r.posted_at } }];
    }
    after = rows.length === EXPORT_PAGE ? [rows[rows.length - 1].datatarget_id, rows[rows.length - 1].message_number] : null;
  }
}

const exportHeader = (opened: CustomerExport) => ({ customer_id: opened.customerId, external_id: opened.externalId, exported_at: answerTimestamp(Date.now()) });

/** What a JSON export beyond the cap answers: the NDJSON form has none. */
export const exportTooLarge = (max: number) =>
  new AppError(406, 'export_too_large', `This customer's export holds more than ${max.toLocaleString('en')} records: ask for it as NDJSON (Accept: application/x-ndjson), or run mds customers export --ndjson`);

/**
 * The export as one JSON document: `{customer_id, external_id, exported_at, customer, consent, events,
 * sales, campaign_events, messages, count}`, `count` the records in the lists. Built whole, so held to
 * `max` records (exportTooLarge beyond).
 */
export async function customerExportDocument(opened: CustomerExport, max = EXPORT_JSON_MAX_RECORDS): Promise<Record<string, unknown>> {
  const lists: Record<CustomerExportSection, Array<Record<string, unknown>>> = { events: [], sales: [], campaign_events: [], messages: [] };
  let count = opened.consent.length;
  if (count > max) throw exportTooLarge(max);
  for await (const [section, item] of opened.items()) {
    if (++count > max) throw exportTooLarge(max);
    lists[section].push(item);
  }
  return { ...exportHeader(opened), customer: opened.customer, consent: opened.consent, ...lists, count };
}

/**
 * The export as NDJSON lines (each ending in a newline, timestamps in the answers' form), read a page
 * at a time: `{section: "export", customer_id, external_id, exported_at}`, `{section: "customer", record,
 * changes}`, a line per consent change, event, sale, campaign event and message (`section` naming which),
 * and last `{section: "end", count}`: an export without it was cut short.
 */
export async function* customerExportLines(opened: CustomerExport): AsyncGenerator<string> {
  const line = (section: string, item: Record<string, unknown>) => `${fixTimestampsInJson(JSON.stringify({ section, ...item }))}\n`;
  yield line('export', exportHeader(opened));
  yield line('customer', opened.customer);
  for (const c of opened.consent) yield line('consent', { ...c });
  let count = opened.consent.length;
  let batch = '';
  for await (const [section, item] of opened.items()) {
    count++;
    batch += line(section, item);
    if (batch.length >= 64 * 1024) {
      yield batch;
      batch = '';
    }
  }
  yield `${batch}${line('end', { count })}`;
}

/** A page of records as export items, each with the run its log position names. */
async function* withRuns(store: EventStore, section: CustomerExportSection, rows: Array<{ record: Record<string, unknown>; position: string | null }>): AsyncGenerator<[CustomerExportSection, Record<string, unknown>]> {
  const runs = await runsAt(store, rows.flatMap((r) => (r.position === null ? [] : [Number(r.position)])));
  for (const r of rows) yield [section, { record: r.record, run: (r.position === null ? undefined : runs.get(Number(r.position))) ?? null }];
}

/** The run (metadata.run_id) and log time of the events at these positions: read without their data, a few at a time. */
export async function runsAt(store: EventStore, positions: number[]): Promise<Map<number, ExportRun>> {
  const out = new Map<number, ExportRun>();
  const wanted = [...new Set(positions)].filter((p) => Number.isSafeInteger(p) && p > 0);
  for (let i = 0; i < wanted.length; i += 8) {
    const pages = await Promise.all(wanted.slice(i, i + 8).map((p) => store.readAll({ after: p - 1, limit: 1, withDataOf: [] })));
    for (const page of pages) {
      for (const e of page.events) out.set(e.position, { run_id: typeof e.metadata.run_id === 'string' ? e.metadata.run_id : null, at: answerTimestamp(e.createdAt) });
    }
  }
  return out;
}
