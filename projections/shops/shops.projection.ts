import * as path from 'node:path';
import { SHOPS_IMPORTED } from '../../libs/settings/src';
import type { Projection } from '../runtime/projection';

/**
 * Set-based: a page of ShopsImported chunks becomes one merge per shop (records in log order), then
 * one UPDATE for known shops and one INSERT for new ones.
 */
export const shopsProjection: Projection = {
  name: 'shops',
  version: 1,
  eventTypes: [SHOPS_IMPORTED],
  tables: ['shops'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events, tx) {
    const chunks = events.map((e) => ({ position: e.position, at: e.createdAt, records: (e.data as { records: unknown[] }).records }));
    await tx.query(`CREATE TEMP TABLE shop_batch ON COMMIT DROP AS
      SELECT r.rec->>'external_id' AS external_id, jsonb_merge_agg(r.rec ORDER BY c.position, r.n) AS patch, max(c.at) AS at
        FROM jsonb_to_recordset($1::jsonb) AS c(position bigint, at timestamptz, records jsonb)
       CROSS JOIN LATERAL jsonb_array_elements(c.records) WITH ORDINALITY AS r(rec, n)
       GROUP BY 1`, [JSON.stringify(chunks)]);
    await tx.query(`UPDATE shops s SET data = jsonb_strip_empty(s.data || b.patch), updated_at = b.at FROM shop_batch b WHERE s.external_id = b.external_id`);
    await tx.query(`INSERT INTO shops (external_id, data, created_at, updated_at)
      SELECT b.external_id, jsonb_strip_empty(b.patch), b.at, b.at FROM shop_batch b
       WHERE NOT EXISTS (SELECT 1 FROM shops s WHERE s.external_id = b.external_id)`);
  },
};
