import type { Pool } from 'pg';
import { customerViewSql } from '../customers/customers.queries';
import { eventViewSql } from '../events/events.queries';
import { liveRow } from '../runtime/merge-by-key';
import { saleViewSql } from '../sales/sales.queries';
import { timestampSql } from '../runtime/timestamp-sql';

/** The datatypes a whole export streams (GET /api/export/<datatype>/). */
export const EXPORT_DATATYPES = ['customers', 'products', 'events', 'sales', 'shops'] as const;
export type ExportDatatype = (typeof EXPORT_DATATYPES)[number];
/** The datatypes whose rows can end and be shown anyway (`?include_deleted=true`), as their lists. */
export const EXPORT_WITH_DELETED: readonly ExportDatatype[] = ['products', 'shops'];

/**
 * What an export reads of a datatype: its key columns in the order lines come (and their types, for
 * the cursor), which rows its retrieval list shows (`live`; `withEnded` when ended rows are asked for
 * too), each row's line (the JSON that list shows), and the read models the line is made from (what
 * a replica must have replayed to serve it).
 */
interface ExportSource {
  from: string;
  live: string;
  withEnded?: string;
  keys: Array<{ column: string; type: 'bigint' | 'text' }>;
  line: string;
  projections: readonly string[];
}

const record = (t: string, id: string) => `${t}.data || jsonb_build_object('id', ${id}, 'updated_at', ${timestampSql(`${t}.updated_at`)})`;

const SOURCES: Record<ExportDatatype, ExportSource> = {
  // Forgotten customers as the list shows them, `{"is_forgotten": true}`: a line without an id (a resumed export starts after the last line with one).
  customers: {
    from: 'customers c',
    live: 'NOT c.is_deleted',
    keys: [{ column: 'c.customer_id', type: 'bigint' }],
    line: customerViewSql('c'),
    projections: ['customers'],
  },
  products: { from: 'products p', live: liveRow('p.data'), withEnded: 'true', keys: [{ column: 'p.external_id', type: 'text' }, { column: 'p.language', type: 'text' }], line: record('p', 'p.external_id'), projections: ['products'] },
  // Events and sales are linked to their customers, products and each other when read (ADR 0007), as in their lists.
  events: { from: 'customer_events e', live: 'NOT e.is_deleted', keys: [{ column: 'e.id', type: 'bigint' }], line: eventViewSql('e'), projections: ['events', 'customers', 'products', 'sales'] },
  sales: { from: 'sales s', live: 'NOT s.is_deleted', keys: [{ column: 's.sale_external_id', type: 'text' }], line: saleViewSql('s'), projections: ['sales', 'events', 'products'] },
  shops: { from: 'shops h', live: liveRow('h.data'), withEnded: 'true', keys: [{ column: 'h.external_id', type: 'text' }], line: record('h', 'h.external_id'), projections: ['shops'] },
};

export interface ExportPage {
  /** The page's lines, each a record's JSON, joined by newlines (no newline after the last); '' when none. */
  lines: string;
  count: number;
  /** The last line's key (the next page's cursor), as text; null when the page is empty. */
  last: string[] | null;
}

export interface ExportPageOptions {
  /** The last key of the previous page (or the client's cursor); undefined: from the first record. */
  after?: string[];
  limit: number;
  /** Rows that ended (products, shops) too, as `?include_deleted=true` lists them. */
  includeDeleted?: boolean;
}

/** The SQL of a page: one statement per datatype, cursor and rows shown, so each is prepared once per connection. */
function pageSql(s: ExportSource, after: boolean, includeDeleted: boolean): string {
  const keys = s.keys.map((k) => k.column);
  const order = keys.join(', ');
  // The keys compared as a row, each cursor value a parameter of its column's type: `(a, b) > ($2::text, $3::text)`.
  const cursor = `(${order}) > (${s.keys.map((k, i) => `$${2 + i}::${k.type}`).join(', ')})`;
  const shown = includeDeleted && s.withEnded ? s.withEnded : s.live;
  const inner = `SELECT ${keys.map((k, i) => `${k} AS k${i}`).join(', ')}, (${s.line})::text AS line
                   FROM ${s.from} WHERE ${shown}${after ? ` AND ${cursor}` : ''} ORDER BY ${order} LIMIT $1`;
  const ks = s.keys.map((_, i) => `k${i}`);
  // The last key by max(), not an aggregate ordered the other way (a second sort of the page): one key
  // as its own type (bigint order is not text order), several text keys as an array (compared as the rows are).
  const last = ks.length === 1 ? `ARRAY[max(k0)::text]` : `max(ARRAY[${ks.map((k) => `${k}::text`).join(', ')}])`;
  if (ks.length > 1 && s.keys.some((k) => k.type !== 'text')) throw new Error('an export key of several parts is text throughout');
  return `SELECT count(*)::int AS count, ${last} AS last,
                 coalesce(string_agg(line, E'\\n' ORDER BY ${ks.join(', ')}), '') AS lines
            FROM (${inner}) page`;
}

const STATEMENTS = new Map<string, string>();

/**
 * A page of an export: up to `limit` records of the datatype as its list shows them, in key order
 * after `after` (the last key of the previous page), rendered by PostgreSQL as newline-joined JSON
 * text, so rows are never parsed and serialised again in Node.
 */
export async function exportPage(pool: Pool, datatype: ExportDatatype, options: ExportPageOptions): Promise<ExportPage> {
  const source = SOURCES[datatype];
  const { after, limit } = options;
  const includeDeleted = options.includeDeleted === true && source.withEnded !== undefined;
  if (after !== undefined && after.length !== source.keys.length) throw new Error(`an export cursor of ${datatype} has ${source.keys.length} part(s)`);
  const name = `export-${datatype}${after ? '-after' : ''}${includeDeleted ? '-all' : ''}`;
  let text = STATEMENTS.get(name);
  if (!text) STATEMENTS.set(name, (text = pageSql(source, after !== undefined, includeDeleted)));
  const { rows } = await pool.query<{ count: number; last: string[] | null; lines: string }>({ name, text, values: [limit, ...(after ?? [])] });
  return { lines: rows[0].lines, count: rows[0].count, last: rows[0].count === 0 ? null : rows[0].last };
}

/** Which parts an export cursor of the datatype has: its key columns' types (customers and events: one whole number). */
export function exportKeyTypes(datatype: ExportDatatype): Array<'bigint' | 'text'> {
  return SOURCES[datatype].keys.map((k) => k.type);
}

/** The read models a datatype's lines are made from: a replica serves a page once it has replayed them. */
export function exportProjections(datatype: ExportDatatype): readonly string[] {
  return SOURCES[datatype].projections;
}
