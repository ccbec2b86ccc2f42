import type { Pool } from 'pg';
import { VIEW_DEFAULTS } from '../customers/customers.queries';
import { eventViewSql } from '../events/events.queries';
import { liveRow } from '../runtime/merge-by-key';
import { saleViewSql } from '../sales/sales.queries';
import { timestampSql } from '../runtime/timestamp-sql';

/** The datatypes a whole export streams (GET /api/export/<datatype>/). */
export const EXPORT_DATATYPES = ['customers', 'products', 'events', 'sales', 'shops'] as const;
export type ExportDatatype = (typeof EXPORT_DATATYPES)[number];

/**
 * What an export reads of a datatype: its key columns in the order lines come (and their types, for
 * the cursor), its live rows, and each row's line, the JSON its retrieval list shows.
 */
interface ExportSource {
  from: string;
  live: string;
  keys: Array<{ column: string; type: 'bigint' | 'text' }>;
  line: string;
  /** Parameters the line's SQL names from $2 on (the cursor's come after them). */
  params?: unknown[];
}

const record = (t: string, id: string) => `${t}.data || jsonb_build_object('id', ${id}, 'updated_at', ${timestampSql(`${t}.updated_at`)})`;

const SOURCES: Record<ExportDatatype, ExportSource> = {
  // Forgotten customers are left out: the list shows them as `{"is_forgotten": true}`, a line with nothing to export nor resume from.
  customers: { from: 'customers c', live: 'NOT c.is_deleted AND NOT c.is_forgotten', keys: [{ column: 'c.customer_id', type: 'bigint' }], line: `$2::jsonb || ${record('c', 'c.customer_id')}`, params: [VIEW_DEFAULTS] },
  products: { from: 'products p', live: liveRow('p.data'), keys: [{ column: 'p.external_id', type: 'text' }, { column: 'p.language', type: 'text' }], line: record('p', 'p.external_id') },
  events: { from: 'customer_events e', live: 'NOT e.is_deleted', keys: [{ column: 'e.id', type: 'bigint' }], line: eventViewSql('e') },
  sales: { from: 'sales s', live: 'NOT s.is_deleted', keys: [{ column: 's.sale_external_id', type: 'text' }], line: saleViewSql('s') },
  shops: { from: 'shops h', live: liveRow('h.data'), keys: [{ column: 'h.external_id', type: 'text' }], line: record('h', 'h.external_id') },
};

export interface ExportPage {
  /** The page's lines, each a record's JSON, joined by newlines (no newline after the last); '' when none. */
  lines: string;
  count: number;
  /** The last line's key (the next page's cursor), as text; null when the page is empty. */
  last: string[] | null;
}

/** The SQL of a page: one statement per datatype and cursor, so each is prepared once per connection. */
function pageSql(s: ExportSource, after: boolean): string {
  const keys = s.keys.map((k) => k.column);
  const order = keys.join(', ');
  // The keys compared as a row, each cursor value a parameter of its column's type: `(a, b) > ($2::text, $3::text)`.
  const first = 2 + (s.params?.length ?? 0);
  const cursor = `(${order}) > (${s.keys.map((k, i) => `$${first + i}::${k.type}`).join(', ')})`;
  const inner = `SELECT ${keys.map((k, i) => `${k} AS k${i}`).join(', ')}, (${s.line})::text AS line
                   FROM ${s.from} WHERE ${s.live}${after ? ` AND ${cursor}` : ''} ORDER BY ${order} LIMIT $1`;
  const ks = s.keys.map((_, i) => `k${i}`);
  return `SELECT count(*)::int AS count,
                 (array_agg(ARRAY[${ks.map((k) => `${k}::text`).join(', ')}] ORDER BY ${ks.map((k) => `${k} DESC`).join(', ')}))[1] AS last,
                 coalesce(string_agg(line, E'\\n' ORDER BY ${ks.join(', ')}), '') AS lines
            FROM (${inner}) page`;
}

const STATEMENTS = new Map<string, string>();

/**
 * A page of an export: up to `limit` live records of the datatype in key order after `after` (the
 * last key of the previous page), rendered by PostgreSQL as newline-joined JSON text, so rows are
 * never parsed and serialised again in Node (as the customers list does).
 */
export async function exportPage(pool: Pool, datatype: ExportDatatype, after: string[] | undefined, limit: number): Promise<ExportPage> {
  const source = SOURCES[datatype];
  if (after !== undefined && after.length !== source.keys.length) throw new Error(`an export cursor of ${datatype} has ${source.keys.length} part(s)`);
  const name = `export-${datatype}${after ? '-after' : ''}`;
  let text = STATEMENTS.get(name);
  if (!text) STATEMENTS.set(name, (text = pageSql(source, after !== undefined)));
  const { rows } = await pool.query<{ count: number; last: string[] | null; lines: string }>({ name, text, values: [limit, ...(source.params ?? []), ...(after ?? [])] });
  return { lines: rows[0].lines, count: rows[0].count, last: rows[0].last };
}

/** Which parts an export cursor of the datatype has: its key columns' types (customers and events: one whole number). */
export function exportKeyTypes(datatype: ExportDatatype): Array<'bigint' | 'text'> {
  return SOURCES[datatype].keys.map((k) => k.type);
}
