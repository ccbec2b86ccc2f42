import type { Pool } from 'pg';
import type { QueryTable } from '../runtime/data-query-sql';
import { forgottenCondition } from '../customers/customers.queries';
import { timestampSql } from '../runtime/timestamp-sql';

/** Bulk updates reach live transactions (transaction-level fields; sale_state moves in and out of statistics). */
export const SALES_QUERY_TABLE: QueryTable = {
  table: 'sales',
  columns: { sale_external_id: { expr: 'sale_external_id' }, sale_state: { expr: 'sale_state' }, sale_customer_id: { expr: 'customer_external_id' }, sale_email: { expr: 'email', lower: true } },
  lists: ['sale_coupon_codes', 'tags'],
  live: 'NOT is_deleted',
};

const COLUMN_FILTERS: Record<string, string> = { sale_state: 'sale_state', sale_customer_id: 'customer_external_id', sale_email: 'email', sale_external_id: 'sale_external_id', sale_phone_number: 'phone' };

/** SQL of a transaction's rows (a jsonb list) with the product each row without a product_id was linked to by its sku/ean as product_id. */
export const linkedRowsSql = (rows: string) => `(
  SELECT coalesce(jsonb_agg(CASE WHEN x ? 'product_id' OR l.external_id IS NULL THEN x ELSE x || jsonb_build_object('product_id', l.external_id) END ORDER BY o), '[]')
    FROM jsonb_array_elements(${rows}) WITH ORDINALITY AS r(x, o)
    LEFT JOIN product_links l ON NOT x ? 'product_id' AND l.sku = coalesce(x->>'product_sku', '') AND l.ean = coalesce(x->>'product_ean', ''))`;

/**
 * SQL of what retrieval shows of a transaction (`s` a row of sales): its fields (without the buyer's
 * identifiers when they are a forgotten customer's), state and total, its rows as `products`
 * (product_id filled in from product linking), and `shipments`, the ORDER_SHIPPED events naming it
 * by sale_id (links are made when read), when there are any.
 */
export function saleViewSql(s: string): string {
  return `(jsonb_build_object('id', ${s}.sale_external_id, 'sale_external_id', ${s}.sale_external_id, 'updated_at', ${timestampSql(`${s}.updated_at`)})
    || CASE WHEN ${forgottenCondition({ externalId: `${s}.customer_external_id`, phone: `${s}.phone`, email: `${s}.email` })}
            THEN ${s}.data - ARRAY['sale_customer_id', 'sale_email', 'sale_phone_number', '$phone'] || '{"is_forgotten": true}' ELSE ${s}.data - '$phone' END
    || jsonb_build_object('sale_state', ${s}.sale_state, 'sale_total', ${s}.sale_total, 'products', ${linkedRowsSql(`${s}.products`)})
    || coalesce((SELECT jsonb_build_object('shipments', jsonb_agg(jsonb_strip_nulls(jsonb_build_object('id', e.id, 'date', e.data->'date', 'tracking_number', e.data->'tracking_number')) ORDER BY e.id))
                   FROM customer_events e WHERE e.type = 'ORDER_SHIPPED' AND e.data->>'sale_id' = ${s}.sale_external_id AND e.data ? 'sale_id' AND NOT e.is_deleted
                  HAVING count(*) > 0), '{}'))`;
}

/**
 * A page of transactions in sale_external_id order after a cursor. Filters: sale_state,
 * sale_customer_id, sale_email, `from`/`to` (sale_date bounds), equality on any other
 * transaction-level field (company fields included; lists, the transaction's tags among them: contains).
 */
export async function listSales(
  pool: Pool,
  options: { limit: number; after?: string; filters?: Record<string, string>; from?: string; to?: string },
): Promise<Array<{ id: string; sale: Record<string, unknown> }>> {
  const params: unknown[] = [options.limit];
  const where = ['NOT s.is_deleted'];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  if (options.after !== undefined) where.push(`s.sale_external_id > ${p(options.after)}`);
  if (options.from !== undefined) where.push(`s.sale_date >= ${p(options.from)}::timestamptz`);
  if (options.to !== undefined) where.push(`s.sale_date < ${p(options.to)}::timestamptz`);
  for (const [name, value] of Object.entries(options.filters ?? {})) {
    const key = name === 'sale_tags' ? 'tags' : name; // the transaction's tags, as they were called here before
    if (key === 'sale_total') where.push(`s.sale_total = ${p(value)}::bigint`);
    else if (COLUMN_FILTERS[key]) where.push(`s.${COLUMN_FILTERS[key]} = ${key === 'sale_email' ? `lower(${p(value)})` : p(value)}`);
    else if (key === 'sale_coupon_codes' || key === 'tags') where.push(`s.data->${p(key)} ? ${p(value)}`);
    else where.push(`s.data->>${p(key)} = ${p(value)}`);
  }
  const { rows } = await pool.query<{ sale_external_id: string; sale: Record<string, unknown> }>(
    `SELECT s.sale_external_id, ${saleViewSql('s')} AS sale FROM sales s WHERE ${where.join(' AND ')} ORDER BY s.sale_external_id LIMIT $1`,
    params,
  );
  return rows.map((r) => ({ id: r.sale_external_id, sale: r.sale }));
}

/** For these transactions: whether an earlier import gave them a date and a customer. */
export async function knownSaleTransactions(pool: Pool, ids: string[]): Promise<Map<string, { hasDate: boolean; hasCustomer: boolean }>> {
  const { rows } = await pool.query<{ id: string; has_date: boolean; has_customer: boolean }>(
    `SELECT sale_external_id AS id, sale_date IS NOT NULL AS has_date, coalesce(customer_external_id, phone, email) IS NOT NULL AS has_customer
       FROM sales WHERE sale_external_id = ANY($1::text[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, { hasDate: r.has_date, hasCustomer: r.has_customer }]));
}

/** The rows these transactions have now: each row's external_id (when it has one) and total. */
export async function saleRowsNow(pool: Pool, ids: string[]): Promise<Map<string, Array<{ external_id?: string; total: number }>>> {
  const { rows } = await pool.query<{ id: string; rows: Array<{ external_id?: string; total: number }> }>(
    `SELECT sale_external_id AS id, (SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('external_id', x->>'external_id', 'total', (x->>'total')::bigint))), '[]')
                                       FROM jsonb_array_elements(products) x) AS rows
       FROM sales WHERE sale_external_id = ANY($1::text[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.rows]));
}
