import * as path from 'node:path';
import { EVENTS_IMPORTED, isDeletion, type EventDeletion, type EventRecord } from '#mds/activity';
import { PRODUCTS_IMPORTED } from '#mds/catalog';
import type { RecordedEvent } from '#mds/event-store';
import { SALES_IMPORTED, type SaleTransaction } from '#mds/sales';
import { DATA_QUERY_ACCEPTED } from '#mds/imports';
import { dataQueryOf, forEachRun, matchWhere } from '../runtime/data-query-sql';
import { anyInDatasyncWindow, DATASYNC_TARGET_EVENTS, inDatasyncWindow, noteDatasyncTargets } from '../datasync/windows';
import { endingRecord, mergeImportedRecords } from '../runtime/merge-by-key';
import { pageRecords, queryByIndex, type Projection, type ProjectionTx } from '../runtime/projection';
import { linkProducts, markImported, ORD, type ProductReference } from './product-links';
import { PRODUCTS_QUERY_TABLE } from './products.queries';

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
const details = (entries: Record<string, unknown>) => Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined && v !== null));

/**
 * What a product created for an event's or a row's unknown product_id copies of it (the spec's "title,
 * price, and so on"): the first of product_title, title and name as its title, and the first whole
 * number (cents, as product imports keep prices) of `prices` as its price.
 */
function copied(r: Record<string, unknown>, prices: string[]): { title?: string; price?: number } {
  const title = [r.product_title, r.title, r.name].map(text).find((v) => v !== null) ?? undefined;
  const price = prices.map((key) => r[key]).find((v): v is number => Number.isSafeInteger(v));
  return { title, price };
}

/** The products an event or sale chunk names, in log order, with what a created product copies. */
export function productReferences(event: RecordedEvent): ProductReference[] {
  const at = event.createdAt;
  const ord = (n: number) => event.position * ORD + n;
  if (event.type === EVENTS_IMPORTED) {
    return (event.data as { records: Array<EventRecord | EventDeletion> }).records.flatMap((r, n) => {
      if (isDeletion(r) || (r.product_id === undefined && r.product_ean === undefined)) return [];
      return [{ ord: ord(n), at, product_id: text(r.product_id), sku: null, ean: text(r.product_ean), details: details({ ...copied(r, ['product_price', 'price']), ean: r.product_ean }) }];
    });
  }
  if (event.type === SALES_IMPORTED) {
    let n = 0;
    return (event.data as { records: SaleTransaction[] }).records.flatMap((t) =>
      t.rows.flatMap((row) => {
        n++;
        if (row.product_id === undefined && row.product_sku === undefined && row.product_ean === undefined) return [];
        // The unit price paid comes last: a row's own product price is the product's.
        return [{ ord: ord(n), at, product_id: text(row.product_id), sku: text(row.product_sku), ean: text(row.product_ean), details: details(copied(row, ['product_price', 'price', 'unit_price'])) }];
      }),
    );
  }
  return [];
}

/** An imported product record as merged: category lists joined (product_record), is_deleted its own (endingRecord). */
const IMPORTED_RECORD = endingRecord('product_record(r.rec)');

/**
 * Products as imported (set-based merge per product and language, like shops), plus the products
 * events and sales name (product linking, see product-links.ts). A page is applied as runs of one
 * event type in log order, so imports and references interleave exactly as they were appended.
 */
export const productsProjection: Projection = {
  name: 'products',
  // 3: an unknown product_id's product copies title, name and price too.
  // 4: category and category_id are strings (lists imported before are joined: product_record).
  // 5: inside a datasync datatarget's window, product_changes keeps each change with the row after it.
  // 6: a row ends with a record sent with is_deleted: true, and comes back with the next one without it;
  //    bulk updates reach live rows only.
  version: 6,
  eventTypes: [PRODUCTS_IMPORTED, EVENTS_IMPORTED, SALES_IMPORTED, DATA_QUERY_ACCEPTED, ...DATASYNC_TARGET_EVENTS],
  // Product chunks are read from the log in SQL; event and sale chunks are read in Node for their product references.
  logDataTypes: [PRODUCTS_IMPORTED],
  batchSize: 20,
  tables: ['products', 'product_links', 'product_changes', 'product_datasync_windows'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events, tx) {
    await forEachRun(events, (e) => e.type, async (run) => {
      if (DATASYNC_TARGET_EVENTS.includes(run[0].type)) {
        await noteDatasyncTargets(run, 'products', tx);
      } else if (run[0].type === PRODUCTS_IMPORTED) {
        const key = { external_id: "r.rec->>'external_id'", language: "coalesce(r.rec->>'language', '')" };
        if (await anyInDatasyncWindow(tx, 'products', run.map((e) => e.position))) await keepImportedStates(run, key, tx);
        await mergeImportedRecords(
          tx,
          run,
          'products',
          Object.entries(key).map(([column, expr]) => ({ column, expr })),
          (batch) => markImported(tx, batch),
          IMPORTED_RECORD,
        );
      } else if (run[0].type === DATA_QUERY_ACCEPTED) {
        for (const e of run) {
          const query = dataQueryOf(e, 'products');
          if (!query) continue;
          const params: unknown[] = [JSON.stringify(query.update), e.createdAt, e.position];
          // Each product row reached is a change (n 0: the whole event).
          await tx.query(
            `WITH u AS (UPDATE products SET data = jsonb_strip_empty(data || product_record($1::jsonb)), updated_at = $2
                         WHERE ${matchWhere(query.match, PRODUCTS_QUERY_TABLE, params)} RETURNING external_id, language, data)
             INSERT INTO product_changes (position, n, external_id, language, state) SELECT $3, 0, external_id, language, data FROM u WHERE ${inDatasyncWindow('products', '$3::bigint')}`,
            params,
          );
        }
      } else {
        await linkProducts(tx, run.flatMap(productReferences));
      }
    });
  },
};

/**
 * Inside a datasync window, each imported record's row as it is after the record (product_changes):
 * the row before the run, then the run's records of that row merged in log order up to this one.
 */
async function keepImportedStates(run: RecordedEvent[], key: { external_id: string; language: string }, tx: ProjectionTx): Promise<void> {
  const page = pageRecords(run, '$1');
  await queryByIndex(
    tx,
    `INSERT INTO product_changes (position, n, external_id, language, state)
     SELECT position, n, external_id, language, state FROM (
       SELECT c.position, r.n::int AS n, ${key.external_id} AS external_id, ${key.language} AS language,
              jsonb_strip_empty(coalesce(p.data, '{}') || jsonb_merge_agg(${IMPORTED_RECORD}) OVER (PARTITION BY ${key.external_id}, ${key.language} ORDER BY c.position, r.n)) AS state
         FROM ${page.from} LEFT JOIN products p ON p.external_id = ${key.external_id} AND p.language = ${key.language}) x
      WHERE ${inDatasyncWindow('products', 'x.position')}`,
    [page.json],
  );
}
