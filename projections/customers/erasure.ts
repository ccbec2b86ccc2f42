import { randomUUID } from 'node:crypto';
import { EVENT_PERSONAL_FIELDS } from '#mds/activity';
import { CAMPAIGN_EVENT_PERSONAL_FIELDS } from '#mds/campaigns';
import { CUSTOMER_PERSONAL_FIELDS, CUSTOMERS_IMPORTED, erasedIdentifierText } from '#mds/customers';
import { ATTEMPT_EVENT_ID_SQL } from '#mds/datatargets';
import type { RecordedEvent } from '#mds/event-store';
import { SALE_PERSONAL_FIELDS, TRANSACTION_PERSONAL_FIELDS } from '#mds/sales';
import type { ProjectionTx } from '../runtime/projection';
import { changesOf } from './customer-history';
import { EVENT_IDENTITY } from '../campaigns/campaign-stats.sql';
import { qualified as q, schemasOf as schemasIn } from '../runtime/read-model-schemas';

const schemasOf = (tx: ProjectionTx, projection: string, table: string) => schemasIn(tx.query as never, projection, table);

/** The personal keys of a sale's merged data (its fields, flat). */
const SALE_DATA_FIELDS = TRANSACTION_PERSONAL_FIELDS;
/** Every personal field a datasync message's record may carry, whatever its datatype (a sale's flat, as retrieval shows it, or in its fields). */
const ANY_RECORD_FIELDS = [...new Set([...CUSTOMER_PERSONAL_FIELDS, ...EVENT_PERSONAL_FIELDS, ...SALE_PERSONAL_FIELDS, ...SALE_DATA_FIELDS, ...CAMPAIGN_EVENT_PERSONAL_FIELDS])];

/**
 * Forgetting, where it holds: after a page of the customers projection forgot customers, everything
 * personal of theirs becomes redaction markers (mds_personal_marker), in this page's transaction, so a
 * forgetting is either done whole or not at all and a projector killed halfway does it again. The
 * log's events are never touched: their personal fields were never in them.
 *
 * - The personal-data lists of every record that changed the customer (customer_changes), and of
 *   every event, sale and campaign event naming one of the e-mails, phones or tokens those records
 *   held: each value becomes a marker, equal values the same marker, so a rebuild matches the marked
 *   records to one another as the plain ones were and forgets the same customer.
 * - The read models built from them, in every generation and replay schema: events, sales, campaign
 *   events and the persons of sales, datasync messages (a copy of each record) and what events and
 *   sales keep for them, other generations of the customers themselves; datasync's copies of the
 *   customers go. What a rebuild would now write, the erasure writes.
 * - forgotten_identifiers keeps the hashes of the markers instead of the identifiers (what a rebuild
 *   computes), so sales and campaign events of the customer still count as theirs.
 *
 * Returns the customers forgotten and the records redacted, for the projector's log (no personal data).
 */
export async function eraseForgotten(tx: ProjectionTx, events: RecordedEvent[]): Promise<{ customers: number; records: number }> {
  const positions = events.filter((e) => e.type === CUSTOMERS_IMPORTED).map((e) => e.position);
  await tx.query(`CREATE TEMP TABLE erasing ON COMMIT DROP AS SELECT customer_id FROM customers WHERE is_forgotten AND updated_position = ANY ($1::bigint[])`, [positions]);
  const { rows: forgotten } = await tx.query<{ customer_id: string }>('SELECT customer_id FROM erasing');
  if (forgotten.length === 0) {
    await tx.query('DROP TABLE erasing');
    return { customers: 0, records: 0 };
  }
  // From here on no projection commits anything built from lists read before this erasure commits
  // (mds_personal_epoch_unchanged): what they built is read again, or waited for and scrubbed below.
  await tx.query('SELECT mds_personal_erasure_begin()');
  const nonce = randomUUID();
  await tx.query(`CREATE TEMP TABLE erase_at (event_id uuid, n int, PRIMARY KEY (event_id, n)) ON COMMIT DROP;
    CREATE TEMP TABLE erase_values (kind text, v text, PRIMARY KEY (kind, v)) ON COMMIT DROP`);
  // The customer's records, by the chunks' event ids, found in the read model (the log may be elsewhere):
  // the one that made the customer (its id names it) and the changes after it.
  const changes = changesOf('SELECT customer_id FROM erasing');
  await tx.query(`INSERT INTO erase_at SELECT DISTINCT k.event_id, ch.n FROM (${changes}) ch JOIN customer_chunks k ON k.position = ch.position WHERE ch.n > 0`);
  // Their external ids (the shop's keys, in the log): datasync messages copy the records with them.
  await tx.query(`INSERT INTO erase_values SELECT DISTINCT 'ext', ch.ext FROM (${changes}) ch WHERE ch.ext IS NOT NULL`);
  // Every e-mail, phone and token the customer's records held.
  await tx.query(`INSERT INTO erase_values SELECT DISTINCT ids.kind, ids.v FROM erase_at a JOIN mds_personal_data p USING (event_id),
      LATERAL (SELECT p.records->(a.n - 1) AS el) x,
      LATERAL (VALUES ('email', lower(x.el->>'email')), ('phone', x.el->>'$phone'), ('phone_number', x.el->>'phone_number'),
                      ('token', x.el->>'cb_token'), ('token', x.el->>'customer_token')) AS ids(kind, v)
    WHERE ids.v IS NOT NULL AND NOT starts_with(ids.v, '[forgotten ') ON CONFLICT DO NOTHING`);
  await keepErasedIdentifiers(tx);
  const values = (kind: string) => `(SELECT v FROM erase_values WHERE kind = '${kind}')`;
  // Events, sales and campaign events naming them (by e-mail, phone, token, or by external id when they
  // carry personal fields: the $customer_id aid): one pass over those lists.
  await tx.query(`INSERT INTO erase_at SELECT p.event_id, z.n FROM mds_personal_data p CROSS JOIN LATERAL jsonb_array_elements(p.records) WITH ORDINALITY AS z(el, n)
     WHERE p.type IS DISTINCT FROM '${CUSTOMERS_IMPORTED}' AND p.whole IS NULL AND jsonb_typeof(z.el) = 'object' AND (
           lower(coalesce(z.el->>'email', z.el->'fields'->>'sale_email')) IN ${values('email')}
        OR coalesce(z.el->>'$phone', z.el->'fields'->>'$phone') IN ${values('phone')}
        OR z.el->>'customer_token' IN ${values('token')}
        OR coalesce(z.el->>'$customer_id', z.el->'fields'->>'$customer_id') IN ${values('ext')})
    ON CONFLICT DO NOTHING`);
  // The personal fields those records held: the types' own and those the settings marked (company
  // fields), a sale's in its fields; the read models built from them lose the same keys.
  const { rows: held } = await tx.query<{ keys: string[] | null }>(
    `SELECT array_agg(DISTINCT k) AS keys FROM erase_at a JOIN mds_personal_data p USING (event_id),
            LATERAL (SELECT CASE WHEN jsonb_typeof(p.records->(a.n - 1)) = 'object' THEN p.records->(a.n - 1) ELSE '{}' END AS el) x,
            LATERAL jsonb_object_keys(x.el || CASE WHEN jsonb_typeof(x.el->'fields') = 'object' THEN x.el->'fields' ELSE '{}' END) AS k
      WHERE k <> 'fields'`,
  );
  const also = held[0].keys ?? [];
  const keys = (own: readonly string[]) => [...new Set([...own, ...also])];
  await tx.query(
    // The salt of the event's commitment to the list goes with the values (README "Audit trail").
    `UPDATE mds_personal_data p SET salt = NULL, records = (
        SELECT jsonb_agg(CASE WHEN a.n IS NULL THEN z.el ELSE mds_personal_redact(z.el, $1) END ORDER BY z.n)
          FROM jsonb_array_elements(p.records) WITH ORDINALITY AS z(el, n) LEFT JOIN erase_at a ON a.event_id = p.event_id AND a.n = z.n)
      WHERE p.event_id IN (SELECT event_id FROM erase_at)`,
    [nonce],
  );
  const records = Number((await tx.query<{ n: string }>('SELECT count(*) AS n FROM erase_at')).rows[0].n);
  const marker = (expr: string) => `mds_personal_marker(${expr}, $1)`;
  const forgottenHashes = (schema: string) =>
    `UPDATE ${q(schema, 'forgotten_identifiers')} f SET hash = identifier_hash(${marker('v.v')})
       FROM erase_values v WHERE f.customer_id IN (SELECT customer_id FROM erasing) AND f.kind = v.kind AND f.kind IN ('email', 'phone') AND f.hash = identifier_hash(v.v)`;
  await tx.query(forgottenHashes(tx.schema), [nonce]);
  for (const schema of await schemasOf(tx, 'customers', 'customers')) {
    if (schema === tx.schema) continue;
    await tx.query(forgottenHashes(schema), [nonce]);
    await tx.query(
      `UPDATE ${q(schema, 'customers')} SET email = ${marker('email')}, phone = ${marker('phone')}, data = mds_personal_redact(data, $1, $2)
        WHERE customer_id IN (SELECT customer_id FROM erasing)`,
      [nonce, keys(CUSTOMER_PERSONAL_FIELDS)],
    );
  }
  const emails = values('email');
  const phones = values('phone');
  const tokens = values('token');
  const exts = values('ext');
  for (const schema of await schemasOf(tx, 'events', 'customer_events')) {
    await tx.query(
      `UPDATE ${q(schema, 'customer_events')} SET email = ${marker('email')}, phone = ${marker('phone')}, customer_token = ${marker('customer_token')},
              data = mds_personal_redact(data, $1, $2)
        WHERE email IN ${emails} OR phone IN ${phones} OR customer_token IN ${tokens} OR customer_external_id IN ${exts}`,
      [nonce, keys(EVENT_PERSONAL_FIELDS)],
    );
  }
  for (const schema of await schemasOf(tx, 'sales', 'sales')) {
    await tx.query(
      `UPDATE ${q(schema, 'sales')} SET email = ${marker('email')}, phone = ${marker('phone')}, data = mds_personal_redact(data, $1, $2)
        WHERE email IN ${emails} OR phone IN ${phones} OR customer_external_id IN ${exts}`,
      [nonce, keys(SALE_DATA_FIELDS)],
    );
  }
  // What the read models keep for datasync messages (the record after each change), like the records themselves.
  for (const schema of await schemasOf(tx, 'events', 'event_bulk_updates')) {
    await tx.query(
      `UPDATE ${q(schema, 'event_bulk_updates')} SET state = mds_personal_redact(state, $1, $2)
        WHERE lower(state->>'email') IN ${emails} OR state->>'phone_number' IN ${values('phone_number')} OR state->>'customer_token' IN ${tokens}
           OR state->>'customer_id' IN ${exts}`,
      [nonce, keys(EVENT_PERSONAL_FIELDS)],
    );
  }
  for (const schema of await schemasOf(tx, 'sales', 'sale_changes')) {
    await tx.query(
      `UPDATE ${q(schema, 'sale_changes')} SET state = mds_personal_redact(state, $1, $2)
        WHERE lower(state->>'sale_email') IN ${emails} OR state->>'$phone' IN ${phones} OR state->>'sale_customer_id' IN ${exts}`,
      [nonce, keys(SALE_DATA_FIELDS)],
    );
  }
  for (const schema of await schemasOf(tx, 'campaigns', 'campaign_events')) {
    await tx.query(
      `UPDATE ${q(schema, 'campaign_events')} SET email = ${marker('email')}, phone = ${marker('phone')}, token = ${marker('token')},
              identity = ${EVENT_IDENTITY('ext', marker('phone'), marker('email'), marker('token'))}
        WHERE email IN ${emails} OR phone IN ${phones} OR token IN ${tokens}`,
      [nonce],
    );
    await tx.query(`UPDATE ${q(schema, 'campaign_sale_people')} SET email = ${marker('email')}, phone = ${marker('phone')} WHERE email IN ${emails} OR phone IN ${phones}`, [nonce]);
  }
  await tx.query(`CREATE TEMP TABLE erased_messages (datatarget_id text, message_number bigint, PRIMARY KEY (datatarget_id, message_number)) ON COMMIT DROP`);
  for (const schema of await schemasOf(tx, 'datasync', 'datasync_messages')) {
    const change = `m.message->'change'`;
    await tx.query(
      `WITH u AS (UPDATE ${q(schema, 'datasync_messages')} m SET message = jsonb_set(m.message, '{change}', mds_personal_redact(${change}, $1, $2))
        WHERE lower(coalesce(${change}->>'email', ${change}->>'sale_email', ${change}->'fields'->>'sale_email')) IN ${emails}
           OR coalesce(${change}->>'phone_number', ${change}->>'sale_phone_number', ${change}->'fields'->>'sale_phone_number') IN ${values('phone_number')}
           OR coalesce(${change}->>'customer_token', ${change}->>'cb_token') IN ${tokens}
           OR (m.message->>'datatype' = 'customers' AND ${change}->>'external_id' IN ${exts})
           OR (m.message->>'datatype' IN ('events', 'sales') AND coalesce(${change}->>'customer_id', ${change}->>'sale_customer_id') IN ${exts})
        RETURNING m.datatarget_id, m.message_number)
       INSERT INTO erased_messages SELECT * FROM u ON CONFLICT DO NOTHING`,
      [nonce, keys(ANY_RECORD_FIELDS)],
    );
  }
  await eraseEchoedReplies(tx, nonce);
  // Datasync's copies of the customers: their next change is folded from the (redacted) log instead.
  for (const schema of await schemasOf(tx, 'datasync', 'datasync_customers')) {
    await tx.query(`DELETE FROM ${q(schema, 'datasync_customers')} WHERE customer_id IN (SELECT customer_id FROM erasing)`);
  }
  await tx.query('DROP TABLE erasing, erase_at, erase_values, erased_messages');
  return { customers: forgotten.length, records };
}

/**
 * The replies to the webhook attempts that sent the erased datasync messages (a receiver may have
 * echoed them): kept beside the log and in the outlet log read model, each becomes a marker.
 */
async function eraseEchoedReplies(tx: ProjectionTx, nonce: string): Promise<void> {
  const schemas = await schemasOf(tx, 'datatargets', 'outlet_log');
  for (const [i, schema] of schemas.entries()) {
    const { rows } = await tx.query<{ outlet_id: string; entry_number: string }>(
      `WITH hit AS (
         SELECT DISTINCT l.outlet_id, l.entry_number FROM ${q(schema, 'outlet_log')} l JOIN ${q(schema, 'outlets')} o USING (outlet_id)
           JOIN erased_messages m ON m.datatarget_id = o.datatarget_id
            AND m.message_number BETWEEN (l.request->'messages'->>0)::bigint AND (l.request->'messages'->>1)::bigint
          WHERE l.http_reply IS NOT NULL AND l.request ? 'messages')
       UPDATE ${q(schema, 'outlet_log')} l SET http_reply = mds_personal_marker(l.http_reply, $1)
         FROM hit WHERE l.outlet_id = hit.outlet_id AND l.entry_number = hit.entry_number
       RETURNING l.outlet_id, l.entry_number`,
      [nonce],
    );
    // The kept replies once, from whichever generation found them first (their ids name the entry).
    if (i > 0 || rows.length === 0) continue;
    await tx.query(
      `UPDATE mds_personal_data p SET salt = NULL, records = (SELECT jsonb_agg(to_jsonb(mds_personal_marker(x, $1))) FROM jsonb_array_elements_text(p.records) x)
        WHERE p.event_id IN (SELECT ${ATTEMPT_EVENT_ID_SQL('h.outlet_id', 'h.entry_number::text')} FROM jsonb_to_recordset($2::jsonb) AS h(outlet_id text, entry_number bigint))`,
      [nonce, JSON.stringify(rows)],
    );
  }
}

/**
 * The keyed hashes of the e-mails, phones and external ids being erased (mds_erased_identifiers), so a
 * later customer import naming one is told that it starts a new customer (ErasedIdentifiers). Only
 * while they are plain: in a rebuild the lists hold markers, and the hashes kept the first time stay.
 */
async function keepErasedIdentifiers(tx: ProjectionTx): Promise<void> {
  if (!tx.keyedHash) return;
  const { rows } = await tx.query<{ kind: string; v: string }>(
    `SELECT CASE kind WHEN 'ext' THEN 'external_id' ELSE kind END AS kind, v FROM erase_values WHERE kind IN ('email', 'phone', 'ext') AND NOT starts_with(v, '[forgotten ')`,
  );
  if (rows.length === 0) return;
  await tx.query(`INSERT INTO mds_erased_identifiers (keyed_hash, kind) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`, [
    rows.map((r) => tx.keyedHash!(erasedIdentifierText(r.kind, r.v))),
    rows.map((r) => r.kind),
  ]);
}
