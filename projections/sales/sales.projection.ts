import * as path from 'node:path';
import { SALES_IMPORTED, STATES_OUT_OF_STATISTICS } from '#mds/sales';
import type { RecordedEvent } from '#mds/event-store';
import { DATA_QUERY_ACCEPTED } from '#mds/imports';
import { dataQueryOf, forEachRun, matchWhere } from '../runtime/data-query-sql';
import { anyInDatasyncWindow, DATASYNC_TARGET_EVENTS, inDatasyncWindow, noteDatasyncTargets } from '../datasync/windows';
import { pageRecords, queryByIndex, type Projection, type ProjectionTx } from '../runtime/projection';
import { SALES_QUERY_TABLE } from './sales.queries';

/**
 * Set-based: the page's transaction records in a temporary table; per transaction the fields are
 * merged in log order, the rows folded in log order over the transaction's (replaced, upserted by
 * their external_id, or kept: sale_rows_fold), the sent sale_total and the state (COMPLETE when it
 * sends none) are the latest import's; one upsert.
 */
export const salesProjection: Projection = {
  name: 'sales',
  // 2: a transaction's tags are `tags` (sent on its header row, or as sale_tags: sale_fields).
  // 3: the state is the latest import's (COMPLETE when it sends none); data no longer keeps it.
  // 4: inside a datasync datatarget's window, sale_changes keeps each change with the transaction after it.
  // 5: position: where the import that brought the transaction in is in the log (a customer's export names its run).
  version: 5,
  eventTypes: [SALES_IMPORTED, DATA_QUERY_ACCEPTED, ...DATASYNC_TARGET_EVENTS],
  logDataTypes: [SALES_IMPORTED],
  batchSize: 20,
  tables: ['sales', 'sale_changes', 'sale_datasync_windows'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events, tx) {
    await forEachRun(events, (e) => e.type, async (run) => {
      if (DATASYNC_TARGET_EVENTS.includes(run[0].type)) return noteDatasyncTargets(run, 'sales', tx);
      if (run[0].type === SALES_IMPORTED) return applyImports(run, tx);
      for (const e of run) {
        const query = dataQueryOf(e, 'sales');
        if (!query) continue;
        const params: unknown[] = [JSON.stringify(query.update), e.createdAt, STATES_OUT_OF_STATISTICS, e.position];
        // Each transaction reached is a change (n 0: the whole event).
        await tx.query(
          `WITH u AS (UPDATE sales SET data = jsonb_strip_empty(data || (sale_fields($1::jsonb - 'is_deleted') - 'sale_state')), is_deleted = is_deleted OR ($1::jsonb ? 'is_deleted'),
                  sale_state = coalesce(nullif($1::jsonb->>'sale_state', ''), sale_state),
                  in_statistics = NOT (coalesce(nullif($1::jsonb->>'sale_state', ''), sale_state) = ANY ($3::text[])), updated_at = $2
            WHERE ${matchWhere(query.match, SALES_QUERY_TABLE, params)} RETURNING *)
           INSERT INTO sale_changes (position, n, sale_external_id, state)
           SELECT $4, 0, sale_external_id, ${saleRecordSql({ id: 'sale_external_id', data: 'data', products: 'products', total: 'sale_total', state: 'sale_state', deleted: 'is_deleted' })}
             FROM u WHERE ${inDatasyncWindow('sales', '$4::bigint')}`,
          params,
        );
      }
    });
  },
};

/** SQL of a transaction's total: the one its latest import sent, else its rows' totals less its sale discount. */
const totalSql = (sent: string, rows: string, data: string) =>
  `coalesce(${sent}, (SELECT coalesce(sum((x->>'total')::bigint), 0) FROM jsonb_array_elements(${rows}) x) - coalesce((${data}->>'sale_discount')::bigint, 0))`;

/** SQL of a transaction as datasync messages carry it (its rows' product links are filled in then); hidden, its key and is_deleted. */
const saleRecordSql = (t: { id: string; data: string; products: string; total: string; state: string; deleted: string }) =>
  `CASE WHEN ${t.deleted} THEN jsonb_build_object('sale_external_id', ${t.id}, 'is_deleted', true)
        ELSE jsonb_build_object('sale_external_id', ${t.id}) || ${t.data} || jsonb_build_object('sale_state', ${t.state}, 'sale_total', ${t.total}, 'products', ${t.products}) END`;

/**
 * Inside a datasync window, each imported record's transaction as it is after the record
 * (sale_changes): the fields merged over the transaction's before the page up to this record, and
 * this record's rows, total and state.
 */
async function keepImportedStates(events: RecordedEvent[], tx: ProjectionTx): Promise<void> {
  const page = pageRecords(events, '$1');
  await queryByIndex(
    tx,
    `INSERT INTO sale_changes (position, n, sale_external_id, state)
     SELECT position, n, id, ${saleRecordSql({ id: 'id', data: 'data', products: 'rows', total: totalSql('sent_total', 'rows', 'data'), state: 'state', deleted: 'deleted' })} FROM (
       SELECT c.position, r.n::int AS n, r.rec->>'sale_external_id' AS id, (r.rec->>'sale_total')::bigint AS sent_total,
              coalesce(r.rec->'fields'->>'sale_state', 'COMPLETE') AS state, coalesce(old.is_deleted, false) AS deleted,
              jsonb_strip_empty(coalesce(old.data - 'sale_state', '{}') || jsonb_merge_agg(sale_fields(r.rec->'fields') - ARRAY['sale_state', '$customer_id'])
                                OVER (PARTITION BY r.rec->>'sale_external_id' ORDER BY c.position, r.n)) AS data,
              sale_rows_after(old.products, sale_rows_fold(r.rec->'rows', r.rec->>'rows_mode') OVER (PARTITION BY r.rec->>'sale_external_id' ORDER BY c.position, r.n)) AS rows
         FROM ${page.from} LEFT JOIN sales old ON old.sale_external_id = r.rec->>'sale_external_id') x
      WHERE ${inDatasyncWindow('sales', 'x.position')}`,
    [page.json],
  );
}

async function applyImports(events: RecordedEvent[], tx: ProjectionTx): Promise<void> {
  if (await anyInDatasyncWindow(tx, 'sales', events.map((e) => e.position))) await keepImportedStates(events, tx);
  const page = pageRecords(events, '$1');
  await tx.query(
    `CREATE TEMP TABLE sales_batch ON COMMIT DROP AS
     SELECT id, fields, fold, last.sale_total, last.sale_state, at, position FROM (
       SELECT r.rec->>'sale_external_id' AS id, jsonb_merge_agg(sale_fields(r.rec->'fields') - ARRAY['sale_state', '$customer_id'] ORDER BY c.position, r.n) AS fields,
              sale_rows_fold(r.rec->'rows', r.rec->>'rows_mode' ORDER BY c.position, r.n) AS fold,
              (array_agg(jsonb_build_object('sale_total', r.rec->'sale_total', 'sale_state', r.rec->'fields'->'sale_state')
                         ORDER BY c.position DESC, r.n DESC))[1] AS latest,
              max(c.at) AS at, min(c.position) AS position
         FROM ${page.from}
        GROUP BY 1) g,
     LATERAL (SELECT (g.latest->>'sale_total')::bigint AS sale_total, coalesce(g.latest->>'sale_state', 'COMPLETE') AS sale_state) last`,
    [page.json],
  );
  await queryByIndex(
    tx,
    `INSERT INTO sales AS s (sale_external_id, data, products, sale_total, sale_state, sale_date, customer_external_id, phone, email, in_statistics, created_at, updated_at, position)
     SELECT b.id, m.data, m.rows, ${totalSql('b.sale_total', 'm.rows', 'm.data')},
            b.sale_state, (m.data->>'sale_date')::timestamptz, m.data->>'sale_customer_id', m.data->>'$phone', m.data->>'sale_email',
            NOT (b.sale_state = ANY ($1::text[])), b.at, b.at, b.position
       FROM sales_batch b
       LEFT JOIN sales old ON old.sale_external_id = b.id
      CROSS JOIN LATERAL (SELECT jsonb_strip_empty(coalesce(old.data - 'sale_state', '{}'::jsonb) || b.fields) AS data, sale_rows_after(old.products, b.fold) AS rows) m
     ON CONFLICT (sale_external_id) DO UPDATE SET data = excluded.data, products = excluded.products, sale_total = excluded.sale_total,
            sale_state = excluded.sale_state, sale_date = excluded.sale_date, customer_external_id = excluded.customer_external_id,
            phone = excluded.phone, email = excluded.email, in_statistics = excluded.in_statistics, updated_at = excluded.updated_at`,
    [STATES_OUT_OF_STATISTICS],
  );
  await tx.query('DROP TABLE sales_batch');
}
