import { inDatasyncWindow } from '../datasync/windows';
import { queryByIndex, type ProjectionTx } from '../runtime/projection';

/** A reference's `ord` is its chunk's position × ORD + its place in the chunk. */
export const ORD = 10000;

/** A product named by an event or a sale row, with the details a created product copies. */
export interface ProductReference {
  ord: number;
  at: string;
  product_id: string | null;
  sku: string | null;
  ean: string | null;
  details: Record<string, unknown>;
}

/**
 * Applies the spec's product-linking rules to the references of one run of events (log order):
 * 1. a product_id no product has → that product is created with the details copied;
 * 2. no product_id → the (sku, ean) link if there is one, else an imported product with that sku and
 *    ean (then sku, then ean; lowest external_id);
 * 3. nothing matches → a product with a synthetic external_id (`sku:<sku>/ean:<ean>`) is created.
 * Lookups ignore auto-created products, so a run's references do not depend on each other and the
 * set-based result equals the one-by-one result, whatever the page boundaries (rebuilds agree).
 */
export async function linkProducts(tx: ProjectionTx, refs: ProductReference[]): Promise<void> {
  if (refs.length === 0) return;
  await tx.query(
    `CREATE TEMP TABLE refs ON COMMIT DROP AS
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(ord bigint, at timestamptz, product_id text, sku text, ean text, details jsonb)`,
    [JSON.stringify(refs)],
  );
  // Each product created is a change of the products, at the reference that created it (inside a datasync window: product_changes).
  await tx.query(`WITH created AS (
      INSERT INTO products (external_id, language, data, created_at, updated_at, auto_created)
      SELECT DISTINCT ON (r.product_id) r.product_id, '', jsonb_build_object('external_id', r.product_id) || r.details, r.at, r.at, true
        FROM refs r
       WHERE r.product_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM products p WHERE p.external_id = r.product_id)
       ORDER BY r.product_id, r.ord
      RETURNING external_id, data)
    ${keepCreated('SELECT c.external_id, c.data, min(r.ord) AS ord FROM created c JOIN refs r ON r.product_id = c.external_id GROUP BY c.external_id, c.data')}`);
  await tx.query(`CREATE TEMP TABLE lookups ON COMMIT DROP AS
    SELECT DISTINCT ON (sku, ean) sku, ean, details, at, ord, NULL::text AS external_id
      FROM (SELECT coalesce(sku, '') AS sku, coalesce(ean, '') AS ean, details, at, ord FROM refs WHERE product_id IS NULL) r
     WHERE NOT EXISTS (SELECT 1 FROM product_links l WHERE l.sku = r.sku AND l.ean = r.ean)
     ORDER BY sku, ean, ord`);
  await tx.query(`UPDATE lookups l SET external_id = coalesce(
      (SELECT min(p.external_id) FROM products p WHERE NOT p.auto_created AND l.sku <> '' AND l.ean <> '' AND p.data->>'sku' = l.sku AND p.data->>'ean' = l.ean),
      (SELECT min(p.external_id) FROM products p WHERE NOT p.auto_created AND l.sku <> '' AND p.data->>'sku' = l.sku),
      (SELECT min(p.external_id) FROM products p WHERE NOT p.auto_created AND l.ean <> '' AND p.data->>'ean' = l.ean))`);
  await tx.query(`UPDATE lookups SET external_id = concat_ws('/', nullif('sku:' || nullif(sku, ''), ''), 'ean:' || nullif(ean, '')) WHERE external_id IS NULL`);
  await tx.query(`WITH created AS (
      INSERT INTO products (external_id, language, data, created_at, updated_at, auto_created)
      SELECT l.external_id, '', jsonb_build_object('external_id', l.external_id) || l.details
               || CASE WHEN l.sku <> '' THEN jsonb_build_object('sku', l.sku) ELSE '{}' END
               || CASE WHEN l.ean <> '' THEN jsonb_build_object('ean', l.ean) ELSE '{}' END, l.at, l.at, true
        FROM lookups l
       WHERE NOT EXISTS (SELECT 1 FROM products p WHERE p.external_id = l.external_id)
      RETURNING external_id, data)
    ${keepCreated('SELECT c.external_id, c.data, min(l.ord) AS ord FROM created c JOIN lookups l USING (external_id) GROUP BY c.external_id, c.data')}`);
  await tx.query(`INSERT INTO product_links (sku, ean, external_id, created_at) SELECT sku, ean, external_id, at FROM lookups`);
  await tx.query('DROP TABLE lookups; DROP TABLE refs');
}

/** SQL keeping the products created (`created`: external_id, data, ord of the reference) that are inside a datasync window. */
const keepCreated = (created: string) => `INSERT INTO product_changes (position, n, external_id, language, state)
    SELECT x.ord / ${ORD}, x.ord % ${ORD}, x.external_id, '', x.data FROM (${created}) x WHERE ${inDatasyncWindow('products', `x.ord / ${ORD}`)}`;

/** Marks the products of a run of product imports as imported (no longer auto-created), from the run's staged keys. */
export async function markImported(tx: ProjectionTx, batch: string): Promise<void> {
  await queryByIndex(tx, `UPDATE products SET auto_created = false WHERE auto_created AND external_id IN (SELECT external_id FROM ${batch})`);
}
