import type { Pool } from 'pg';

import { joinedMatch, type QueryTable } from '../runtime/data-query-sql';
import { liveRow } from '../runtime/merge-by-key';
import { timestampSql } from '../runtime/timestamp-sql';

const LIST_FIELDS = new Set(['recommendation_set_ids', 'tags', 'main_product_ids']);
/** Strings that may join several categories with commas (a list sent is kept joined): "Running" finds "Shoes, Running". */
const JOINED_FIELDS = new Set(['category', 'category_id']);

/** Bulk updates reach every live product row (each language); the key columns cannot be updated. */
export const PRODUCTS_QUERY_TABLE: QueryTable = {
  table: 'products',
  columns: { external_id: { expr: 'external_id' }, language: { expr: "nullif(language, '')" } },
  lists: [...LIST_FIELDS],
  joined: [...JOINED_FIELDS],
  live: liveRow('data'),
};

/**
 * A page of product rows in (external_id, language) order after a cursor; equality filters (lists:
 * contains; categories: the whole text or one of its parts); ended rows (is_deleted) only when asked.
 */
export async function listProducts(
  pool: Pool,
  options: { limit: number; after?: [string, string]; filters?: Record<string, string>; includeDeleted?: boolean },
): Promise<Array<{ key: [string, string]; product: Record<string, unknown> }>> {
  const params: unknown[] = [options.limit];
  const where: string[] = [options.includeDeleted ? 'true' : liveRow('data')];
  if (options.after) {
    params.push(options.after[0], options.after[1]);
    where.push(`(external_id, language) > ($${params.length - 1}, $${params.length})`);
  }
  for (const [key, value] of Object.entries(options.filters ?? {})) {
    params.push(value);
    const v = `$${params.length}`;
    if (key === 'external_id' || key === 'language') {
      where.push(`${key} = ${v}`);
      continue;
    }
    params.push(key);
    const k = `$${params.length}`;
    if (JOINED_FIELDS.has(key)) where.push(joinedMatch(`data->>${k}`, `ARRAY[${v}::text]`));
    else where.push(LIST_FIELDS.has(key) ? `data->${k} ? ${v}` : `data->>${k} = ${v}`);
  }
  const { rows } = await pool.query<{ external_id: string; language: string; data: Record<string, unknown> }>(
    `SELECT external_id, language, data || jsonb_build_object('id', external_id, 'updated_at', ${timestampSql('updated_at')}) AS data FROM products WHERE ${where.join(' AND ')} ORDER BY external_id, language LIMIT $1`,
    params,
  );
  return rows.map((r) => ({ key: [r.external_id, r.language], product: r.data }));
}
