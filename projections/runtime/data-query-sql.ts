import type { Pool } from 'pg';
import type { RecordedEvent } from '#mds/event-store';
import { DATA_QUERY_ACCEPTED, type DataQuery, type ImportRunAccepted } from '#mds/imports';

/** How a read model answers a bulk update's `match`. */
export interface QueryTable {
  table: string;
  /** Fields kept in a column of their own: the SQL text expression, and whether values compare lower-cased. */
  columns: Record<string, { expr: string; lower?: boolean }>;
  /** List fields: equality means "contains". */
  lists: string[];
  /** Fields kept as one string that may join several values with commas: equality is the whole string or one of its parts. */
  joined?: string[];
  /** Rows a bulk update can reach (not deleted, not forgotten). */
  live: string;
}

/** The WHERE clause of a match (parameters appended to `params`); field names and values only ever travel as parameters. */
export function matchWhere(match: Record<string, unknown>, t: QueryTable, params: unknown[]): string {
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const conditions = [t.live];
  for (const [key, value] of Object.entries(match)) {
    const [name, op] = key.split('.');
    const column = t.columns[name];
    if (op === 'exists') {
      const present = column ? `${column.expr} IS NOT NULL` : `data ? ${p(name)}`;
      conditions.push(value === true ? present : `NOT (${present})`);
      continue;
    }
    const values = (Array.isArray(value) ? value : [value]).map((v) => (column?.lower ? String(v).toLowerCase() : String(v)));
    if (!column && t.lists.includes(name)) conditions.push(`data->${p(name)} ?| ${p(values)}::text[]`);
    else if (!column && t.joined?.includes(name)) conditions.push(joinedMatch(`data->>${p(name)}`, `${p(values)}::text[]`));
    else conditions.push(`${column ? column.expr : `data->>${p(name)}`} = ANY (${p(values)}::text[])`);
  }
  return conditions.join(' AND ');
}

/**
 * SQL: the text `expr` is one of `values` (a text[]) or has one among its comma-separated parts
 * (trimmed): how a product's category "Shoes, Running" is found by "Running" as by its whole text.
 */
export function joinedMatch(expr: string, values: string): string {
  return `(${expr} = ANY (${values}) OR EXISTS (SELECT 1 FROM unnest(string_to_array(${expr}, ',')) AS part WHERE btrim(part) = ANY (${values})))`;
}

/** How many live records of the read model a match reaches now (the `matched` of the answer). */
export async function countMatches(pool: Pool, match: Record<string, unknown>, t: QueryTable): Promise<number> {
  const params: unknown[] = [];
  const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t.table} WHERE ${matchWhere(match, t, params)}`, params);
  return rows[0].n;
}

/** The bulk update an event carries when it is one for this datatype. */
export function dataQueryOf(event: RecordedEvent, datatype: DataQuery['datatype']): DataQuery | undefined {
  if (event.type !== DATA_QUERY_ACCEPTED) return undefined;
  const q = (event.data as ImportRunAccepted).query;
  return q && q.datatype === datatype ? q : undefined;
}

/**
 * Calls `apply` for each run of consecutive events of one kind (`kindOf`), in log order: a page that
 * mixes imports and bulk updates is applied exactly in the order it was appended.
 */
export async function forEachRun(events: RecordedEvent[], kindOf: (e: RecordedEvent) => string, apply: (run: RecordedEvent[]) => Promise<void>): Promise<void> {
  for (let start = 0; start < events.length; ) {
    let end = start + 1;
    const kind = kindOf(events[start]);
    while (end < events.length && kindOf(events[end]) === kind) end++;
    await apply(events.slice(start, end));
    start = end;
  }
}
