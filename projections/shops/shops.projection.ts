import * as path from 'node:path';
import { SHOPS_IMPORTED } from '#mds/settings';
import { mergeImportedRecords } from '../runtime/merge-by-key';
import type { Projection } from '../runtime/projection';

/**
 * Set-based: a page of ShopsImported chunks becomes one merge per shop (records in log order), then
 * one UPDATE for known shops and one INSERT for new ones.
 */
export const shopsProjection: Projection = {
  name: 'shops',
  version: 1,
  eventTypes: [SHOPS_IMPORTED],
  logDataTypes: [SHOPS_IMPORTED],
  tables: ['shops'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events, tx) {
    await mergeImportedRecords(tx, events, 'shops', [{ column: 'external_id', expr: "r.rec->>'external_id'" }]);
  },
};
