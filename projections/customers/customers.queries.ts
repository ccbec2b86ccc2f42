import type { Pool } from 'pg';

import type { QueryTable } from '../runtime/data-query-sql';

const LIST_FIELDS = new Set(['tags', 'mailing_lists']);

/** Bulk updates reach live customers (not deleted, not forgotten). */
export const CUSTOMERS_QUERY_TABLE: QueryTable = {
  table: 'customers',
  columns: { external_id: { expr: 'external_id' }, email: { expr: 'email', lower: true } },
  lists: ['tags', 'mailing_lists'],
  live: 'NOT is_deleted AND NOT is_forgotten',
};
const BOOLEAN_DEFAULT_FALSE = new Set(['can_email', 'can_post', 'can_profile', 'can_push', 'can_sms']);

/** What retrieval shows of a customer: its fields, with the permission defaults filled in. */
export function customerView(data: Record<string, unknown>, forgotten: boolean): Record<string, unknown> {
  if (forgotten) return { is_forgotten: true };
  const out: Record<string, unknown> = { ...data };
  for (const key of BOOLEAN_DEFAULT_FALSE) if (out[key] === undefined) out[key] = false;
  return out;
}

/**
 * A page of live (not deleted) customers in customer_id order after a cursor. Filters compare a
 * field by equality (lists: contains; can_* false also matches absent); `updatedSince` bounds updated_at.
 */
export async function listCustomers(
  pool: Pool,
  options: { limit: number; after?: number; filters?: Record<string, string>; updatedSince?: string },
): Promise<Array<{ id: number; customer: Record<string, unknown> }>> {
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
  const { rows } = await pool.query<{ customer_id: number; data: Record<string, unknown>; is_forgotten: boolean }>(
    `SELECT customer_id, data, is_forgotten FROM customers WHERE ${where.join(' AND ')} ORDER BY customer_id LIMIT $1`,
    params,
  );
  return rows.map((r) => ({ id: r.customer_id, customer: customerView(r.data, r.is_forgotten) }));
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
