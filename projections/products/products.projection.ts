import * as path from 'node:path';
import { PRODUCTS_IMPORTED } from '../../libs/catalog/src';
import type { Projection } from '../runtime/projection';

/** Set-based, like shops: one merge per (product, language) in log order, then one UPDATE and one INSERT. */
export const productsProjection: Projection = {
  name: 'products',
  version: 1,
  eventTypes: [PRODUCTS_IMPORTED],
  batchSize: 20,
  tables: ['products'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events, tx) {
    const chunks = events.map((e) => ({ position: e.position, at: e.createdAt, records: (e.data as { records: unknown[] }).records }));
    await tx.query(
      `CREATE TEMP TABLE product_batch ON COMMIT DROP AS
       SELECT r.rec->>'external_id' AS external_id, coalesce(r.rec->>'language', '') AS language,
              jsonb_merge_agg(r.rec ORDER BY c.position, r.n) AS patch, max(c.at) AS at
         FROM jsonb_to_recordset($1::jsonb) AS c(position bigint, at timestamptz, records jsonb)
        CROSS JOIN LATERAL jsonb_array_elements(c.records) WITH ORDINALITY AS r(rec, n)
        GROUP BY 1, 2`,
      [JSON.stringify(chunks)],
    );
    await tx.query(`UPDATE products p SET data = jsonb_strip_empty(p.data || b.patch), updated_at = b.at
      FROM product_batch b WHERE p.external_id = b.external_id AND p.language = b.language`);
    await tx.query(`INSERT INTO products (external_id, language, data, created_at, updated_at)
      SELECT b.external_id, b.language, jsonb_strip_empty(b.patch), b.at, b.at FROM product_batch b
       WHERE NOT EXISTS (SELECT 1 FROM products p WHERE p.external_id = b.external_id AND p.language = b.language)`);
  },
};
