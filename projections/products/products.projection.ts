import * as path from 'node:path';
import { PRODUCTS_IMPORTED } from '../../libs/catalog/src';
import { mergeImportedRecords } from '../runtime/merge-by-key';
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
    await mergeImportedRecords(tx, events, 'products', [
      { column: 'external_id', expr: "r.rec->>'external_id'" },
      { column: 'language', expr: "coalesce(r.rec->>'language', '')" },
    ]);
  },
};
