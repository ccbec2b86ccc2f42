import type { Pool } from 'pg';
import type { QueryTable } from '../runtime/data-query-sql';
import { forgottenCondition } from '../customers/customers.queries';
import { timestampSql } from '../runtime/timestamp-sql';

/** Bulk updates reach live events; `{is_deleted: true}` deletes them. */
export const EVENTS_QUERY_TABLE: QueryTable = {
  table: 'customer_events',
  columns: { id: { expr: 'id::text' }, type: { expr: 'type' }, customer_id: { expr: 'customer_external_id' }, email: { expr: 'email', lower: true }, customer_token: { expr: 'customer_token' } },
  lists: ['tags', 'mailing_lists'],
  live: 'NOT is_deleted',
};

/** Filters with a column of their own; `customer` links through the customer's identifiers. */
const COLUMN_FILTERS: Record<string, string> = { type: 'type', customer_id: 'customer_external_id', email: 'email', customer_token: 'customer_token' };

/** SQL of an event's data (jsonb) with the product it was linked to by its product_ean alone as product_id. */
export const linkedEventSql = (data: string) => `(${data}
  || CASE WHEN ${data} ? 'product_id' OR NOT ${data} ? 'product_ean' THEN '{}'
          ELSE coalesce((SELECT jsonb_build_object('product_id', l.external_id) FROM product_links l WHERE l.sku = '' AND l.ean = ${data}->>'product_ean'), '{}') END)`;

/**
 * SQL of what retrieval shows of an event (`e` a row of customer_events). An event of a forgotten
 * customer shows only what is not personal. An event naming its product by product_ean alone shows
 * the product it was linked to as product_id; an ORDER_SHIPPED event whose sale_id names a transaction
 * shows it as `sale` ({sale_external_id, sale_date, sale_state, sale_total}; links are made when read).
 */
export function eventViewSql(e: string): string {
  return `CASE WHEN ${forgottenCondition({ externalId: `${e}.customer_external_id`, phone: `${e}.phone`, email: `${e}.email` })}
               THEN jsonb_build_object('id', ${e}.id, 'type', ${e}.type, 'date', ${e}.data->'date', 'is_forgotten', true, 'updated_at', ${timestampSql(`coalesce(${e}.updated_at, ${e}.created_at)`)})
               ELSE ${linkedEventSql(`${e}.data`)} || jsonb_build_object('id', ${e}.id, 'updated_at', ${timestampSql(`coalesce(${e}.updated_at, ${e}.created_at)`)})
                 || CASE WHEN ${e}.type <> 'ORDER_SHIPPED' OR NOT ${e}.data ? 'sale_id' OR ${e}.data ? 'sale' THEN '{}'
                         ELSE coalesce((SELECT jsonb_build_object('sale', jsonb_build_object('sale_external_id', s.sale_external_id, 'sale_date', s.data->'sale_date', 'sale_state', s.sale_state, 'sale_total', s.sale_total))
                                          FROM sales s WHERE s.sale_external_id = ${e}.data->>'sale_id' AND NOT s.is_deleted), '{}') END END`;
}

/**
 * A page of live events in id order after a cursor. Filters: `type`, `customer_id`, `email`,
 * `phone_number` (normalised form or as sent), `customer_token`, `customer` (a customer's
 * external_id: every event naming any of its identifiers), `from`/`to` (date bounds), and equality
 * on any other field (lists: contains).
 */
export async function listEvents(
  pool: Pool,
  options: { limit: number; after?: number; filters?: Record<string, string>; from?: string; to?: string },
): Promise<Array<{ id: number; event: Record<string, unknown> }>> {
  const params: unknown[] = [options.limit];
  const where = ['NOT e.is_deleted'];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  if (options.after !== undefined) where.push(`e.id > ${p(options.after)}`);
  if (options.from !== undefined) where.push(`e.date >= ${p(options.from)}::timestamptz`);
  if (options.to !== undefined) where.push(`e.date < ${p(options.to)}::timestamptz`);
  for (const [key, value] of Object.entries(options.filters ?? {})) {
    if (key === 'id') where.push(`e.id = ${p(value)}::bigint`);
    else if (COLUMN_FILTERS[key]) where.push(`e.${COLUMN_FILTERS[key]} = ${key === 'email' ? `lower(${p(value)})` : p(value)}`);
    else if (key === 'phone_number') where.push(`(e.phone = ${p(value)} OR e.data->>'phone_number' = $${params.length})`);
    else if (key === 'customer') {
      where.push(`EXISTS (SELECT 1 FROM customers c WHERE c.external_id = ${p(value)} AND NOT c.is_forgotten AND (
        e.customer_external_id = c.external_id OR e.email = c.email OR e.phone = c.phone OR e.customer_token = c.data->>'cb_token'))`);
    } else if (key === 'tags' || key === 'mailing_lists') where.push(`e.data->${p(key)} ? ${p(value)}`);
    else where.push(`e.data->>${p(key)} = ${p(value)}`);
  }
  const { rows } = await pool.query<{ id: number; data: Record<string, unknown> }>(
    `SELECT e.id, ${eventViewSql('e')} AS data FROM customer_events e WHERE ${where.join(' AND ')} ORDER BY e.id LIMIT $1`,
    params,
  );
  return rows.map((r) => ({ id: r.id, event: r.data }));
}

/** Which of these ids are events (deleted or not). */
export async function existingEventIds(pool: Pool, ids: number[]): Promise<Set<number>> {
  const { rows } = await pool.query<{ id: number }>('SELECT id FROM customer_events WHERE id = ANY($1::bigint[])', [ids]);
  return new Set(rows.map((r) => r.id));
}
