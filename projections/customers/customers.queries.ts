import type { Pool } from 'pg';

import type { QueryTable } from '../runtime/data-query-sql';
import { timestampSql } from '../runtime/timestamp-sql';

const LIST_FIELDS = new Set(['tags', 'mailing_lists']);

/** Bulk updates reach live customers (not deleted, not forgotten). */
export const CUSTOMERS_QUERY_TABLE: QueryTable = {
  table: 'customers',
  columns: { external_id: { expr: 'external_id' }, email: { expr: 'email', lower: true } },
  lists: ['tags', 'mailing_lists'],
  live: 'NOT is_deleted AND NOT is_forgotten',
};
const BOOLEAN_DEFAULT_FALSE = new Set(['can_email', 'can_post', 'can_profile', 'can_push', 'can_sms']);

/**
 * SQL of a customer as retrieval shows it, as JSON text: `{"id": …, "updated_at": "…", "can_…": false
 * for each permission the customer lacks, …its stored fields}`, `{"is_forgotten": true}` for a
 * forgotten one (the row `t` has customer_id, data, is_forgotten, updated_at). Built as text around the stored
 * document's own text (its `{` cut as a byte, not a character: `substr` of text counts every
 * character): as jsonb, `defaults || data || {id, updated_at}` decoded and re-encoded every record,
 * half a page's time. Stored fields never include `id` or `updated_at`, so no key repeats.
 */
export const customerViewSql = (t: string) =>
  `CASE WHEN ${t}.is_forgotten THEN '{"is_forgotten": true}' ELSE ` +
  `'{"id": ' || ${t}.customer_id || ', "updated_at": "' || ${timestampSql(`${t}.updated_at`)} || '"'` +
  [...BOOLEAN_DEFAULT_FALSE].map((k) => ` || CASE WHEN ${t}.data ? '${k}' THEN '' ELSE ', "${k}": false' END`).join('') +
  ` || CASE WHEN ${t}.data = '{}' THEN '}' ELSE ', ' || convert_from(substr(convert_to(${t}.data::text, 'UTF8'), 2), 'UTF8') END END`;

/**
 * A page of live (not deleted) customers in customer_id order after a cursor, rendered by PostgreSQL
 * as the JSON text of the page's customers (their fields, the can_* defaults filled in, comma-separated, no brackets): the
 * rows never get parsed and re-serialised in Node. Filters compare a field by equality (lists:
 * contains; can_* false also matches absent); `updatedSince` bounds updated_at.
 */
export async function listCustomers(
  pool: Pool,
  options: { limit: number; after?: number; filters?: Record<string, string>; updatedSince?: string },
): Promise<{ json: string; count: number; lastId: number | null }> {
  // Only the conditions in use, so the planner walks the primary key in order for plain paging.
  const params: unknown[] = [options.limit];
  const where = ['NOT is_deleted'];
  if (options.after !== undefined) {
    params.push(options.after);
    where.push(`customer_id > $${params.length}`);
  }
  if (options.updatedSince !== undefined) {
    params.push(options.updatedSince);
    where.push(`updated_at >= $${params.length}::timestamptz`);
  }
  for (const [key, value] of Object.entries(options.filters ?? {})) {
    params.push(value);
    const v = `$${params.length}`;
    if (key === 'external_id') {
      where.push(`external_id = ${v}`);
      continue;
    }
    if (key === 'phone_number') {
      where.push(`phone = ${v}`);
      continue;
    }
    if (key === 'email') {
      where.push(`email = lower(${v})`);
      continue;
    }
    params.push(key);
    const k = `$${params.length}`;
    if (LIST_FIELDS.has(key)) where.push(`data->${k} ? ${v}`);
    else if (BOOLEAN_DEFAULT_FALSE.has(key)) where.push(`coalesce(data->>${k}, 'false') = ${v}`);
    else where.push(`data->>${k} = ${v}`);
  }
  const text =
    `SELECT count(*)::int AS count, max(customer_id) AS last_id,
            coalesce(string_agg(${customerViewSql('page')}, ',' ORDER BY customer_id), '') AS json
       FROM (SELECT customer_id, data, is_forgotten, updated_at FROM customers WHERE ${where.join(' AND ')} ORDER BY customer_id LIMIT $1) page`;
  // Plain paging (the common case) is a prepared statement: planned once per connection.
  const plain = options.updatedSince === undefined && Object.keys(options.filters ?? {}).length === 0;
  const { rows } = await pool.query<{ count: number; last_id: string | null; json: string }>(
    plain ? { name: options.after === undefined ? 'customers-page' : 'customers-page-after', text, values: params } : { text, values: params },
  );
  const row = rows[0];
  return { json: row.json, count: row.count, lastId: row.last_id === null ? null : Number(row.last_id) };
}

/**
 * SQL true when any of these identifier expressions (external id, normalised phone, lower-cased
 * e-mail) belongs to a forgotten customer: events and sales of forgotten customers are shown without
 * personal data. The hashes match the customers projection's identifier_hash.
 */
export function forgottenCondition(ids: { externalId?: string; phone?: string; email?: string }): string {
  const hash = (expr: string) => `encode(sha256(convert_to(${expr}, 'UTF8')), 'hex')`;
  const parts = [
    ids.externalId && `(f.kind = 'external_id' AND f.hash = ${hash(ids.externalId)})`,
    ids.phone && `(f.kind = 'phone' AND f.hash = ${hash(ids.phone)})`,
    ids.email && `(f.kind = 'email' AND f.hash = ${hash(ids.email)})`,
  ].filter(Boolean);
  return `EXISTS (SELECT 1 FROM forgotten_identifiers f WHERE ${parts.join(' OR ')})`;
}

/**
 * The live (not forgotten) customer an identifier finds now, as an import record would: by
 * external_id, or by the phone (normalised) or e-mail (lower-cased), the oldest when several share it.
 */
export async function findLiveCustomer(pool: Pool, by: 'external_id' | 'email' | 'phone', value: string): Promise<number | undefined> {
  const column = by === 'external_id' ? 'external_id' : by;
  const { rows } = await pool.query<{ customer_id: string }>(
    `SELECT customer_id FROM customers WHERE ${column} = $1 AND NOT is_forgotten ORDER BY customer_id LIMIT 1`,
    [by === 'email' ? value.toLowerCase() : value],
  );
  return rows[0] ? Number(rows[0].customer_id) : undefined;
}

/**
 * What forgetting kept of the identifiers it erased (mds_erased_identifiers, beside the log): whether
 * there is anything, and which of some keyed hashes are there. Answers the customers import's port.
 */
export function erasedIdentifiers(pool: Pool) {
  return {
    any: async () => (await pool.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM mds_erased_identifiers) AS any')).rows[0].any,
    among: async (hashes: string[]) =>
      new Set((await pool.query<{ keyed_hash: string }>('SELECT keyed_hash FROM mds_erased_identifiers WHERE keyed_hash = ANY ($1::text[])', [hashes])).rows.map((r) => r.keyed_hash)),
  };
}
