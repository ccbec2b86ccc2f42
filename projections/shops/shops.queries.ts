import type { Pool } from 'pg';
import { liveRow } from '../runtime/merge-by-key';
import { timestampSql } from '../runtime/timestamp-sql';

/** A page of shops in external_id order, after a cursor (the last external_id of the previous page); ended shops (is_deleted) only when asked. */
export async function listShops(pool: Pool, options: { limit: number; after?: string; filters?: Record<string, string>; includeDeleted?: boolean }): Promise<Array<Record<string, unknown>>> {
  const params: unknown[] = [options.limit, options.after ?? null];
  const where: string[] = ['($2::text IS NULL OR external_id > $2)', options.includeDeleted ? 'true' : liveRow('data')];
  for (const [key, value] of Object.entries(options.filters ?? {})) {
    params.push(key, value);
    where.push(`data->>$${params.length - 1} = $${params.length}`);
  }
  const { rows } = await pool.query<{ data: Record<string, unknown> }>(
    `SELECT data || jsonb_build_object('id', external_id, 'updated_at', ${timestampSql('updated_at')}) AS data FROM shops WHERE ${where.join(' AND ')} ORDER BY external_id LIMIT $1`,
    params,
  );
  return rows.map((r) => r.data);
}
