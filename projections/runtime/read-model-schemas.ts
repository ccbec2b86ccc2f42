import { REPLAY_TABLE } from './replay';

type Query = (sql: string, params?: unknown[]) => Promise<{ rows: Array<Record<string, unknown>> }>;

/**
 * Every schema holding a read model's table: each generation of the projection (live, building,
 * retired and not yet dropped) and each replay (`mds events replay`). What must forget or drop
 * personal data changes them all, not only the one readers see.
 */
export async function schemasOf(query: Query, projection: string, table: string): Promise<string[]> {
  const { rows } = await query(
    `SELECT schema_name AS schema FROM mds_projections WHERE name = $1
     UNION SELECT r.table_schema FROM information_schema.tables r
      WHERE r.table_name = $2 AND EXISTS (SELECT 1 FROM information_schema.tables m WHERE m.table_schema = r.table_schema AND m.table_name = '${REPLAY_TABLE}')
     ORDER BY 1`,
    [projection, table],
  );
  return rows.map((r) => String(r.schema));
}

/** `"schema".table`, the table being one of the service's own snake_case names. */
export const qualified = (schema: string, table: string) => `"${schema.replace(/"/g, '""')}".${table}`;
