import type { RecordedEvent } from '#mds/event-store';
import { pageRecords, queryByIndex, type ProjectionTx } from './projection';

export interface MergeKey {
  column: string;
  /** SQL computing the key from `r.rec` (one imported record). */
  expr: string;
}

/** The words a boolean may be sent as for true (coerceBoolean), for records kept as sent before a field was a boolean. */
const TRUE_WORDS = "('true', '1', 'yes')";

/**
 * A record of a read model whose rows can end (products, shops), as merged: its `is_deleted` is true
 * when the record says so and "" (removed) otherwise, so the row's state is its last record's: ended
 * by a record sent with `is_deleted: true`, back with the next record of its key sent without it.
 * Ended rows stay in the table (statistics, product linking, history) with `is_deleted: true`.
 */
export const endingRecord = (record: string, rec = 'r.rec') =>
  `(${record} || jsonb_build_object('is_deleted', CASE WHEN lower(btrim(${rec}->>'is_deleted')) IN ${TRUE_WORDS} THEN 'true'::jsonb ELSE '""'::jsonb END))`;

/** SQL: the row (its `data`) has not ended (see endingRecord). */
export const liveRow = (data: string) => `NOT ${data} @> '{"is_deleted": true}'`;

/**
 * The set-based merge every keyed import read model uses (shops, products): the page's records are
 * merged per key in log order (later keys override earlier ones; "" removes a key), then one UPDATE
 * for known rows and one INSERT for new ones. The table has the key columns, `data`, `created_at`,
 * `updated_at`. Table and column names come from code, never from input. `then` runs last, with the
 * name of the page's staged table (its key columns), before that table is dropped. `record` is the SQL
 * of one record as merged (`r.rec`, or a function of it giving older records the current shape).
 */
export async function mergeImportedRecords(
  tx: ProjectionTx,
  events: RecordedEvent[],
  table: string,
  keys: MergeKey[],
  then?: (batch: string) => Promise<void>,
  record = 'r.rec',
): Promise<void> {
  const batch = `${table}_batch`;
  const cols = keys.map((k) => k.column);
  const match = (a: string, b: string) => cols.map((c) => `${a}.${c} = ${b}.${c}`).join(' AND ');
  const page = pageRecords(events, '$1');
  await tx.query(
    `CREATE TEMP TABLE ${batch} ON COMMIT DROP AS
     SELECT ${keys.map((k) => `${k.expr} AS ${k.column}`).join(', ')},
            jsonb_merge_agg(${record} ORDER BY c.position, r.n) AS patch, max(c.at) AS at
       FROM ${page.from}
      GROUP BY ${keys.map((_, i) => i + 1).join(', ')}`,
    [page.json],
  );
  // Both joins with the table go by index (see queryByIndex).
  await queryByIndex(tx, `UPDATE ${table} t SET data = jsonb_strip_empty(t.data || b.patch), updated_at = b.at FROM ${batch} b WHERE ${match('t', 'b')}`);
  await queryByIndex(tx, `INSERT INTO ${table} (${cols.join(', ')}, data, created_at, updated_at)
    SELECT ${cols.map((c) => `b.${c}`).join(', ')}, jsonb_strip_empty(b.patch), b.at, b.at FROM ${batch} b
     WHERE NOT EXISTS (SELECT 1 FROM ${table} t WHERE ${match('t', 'b')})`);
  await then?.(batch);
  await tx.query(`DROP TABLE ${batch}`);
}
