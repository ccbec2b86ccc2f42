import * as path from 'node:path';
import { SHOPS_IMPORTED } from '#mds/settings';
import { endingRecord, mergeImportedRecords } from '../runtime/merge-by-key';
import type { Projection } from '../runtime/projection';

/**
 * Set-based: a page of ShopsImported chunks becomes one merge per shop (records in log order), then
 * one UPDATE for known shops and one INSERT for new ones. A shop ends with a record sent with
 * `is_deleted: true` and comes back with the next one without it (endingRecord).
 */
export const shopsProjection: Projection = {
  name: 'shops',
  // 2: is_deleted ends a shop (kept, left out of retrieval); the next record without it brings it back.
  version: 2,
  eventTypes: [SHOPS_IMPORTED],
  logDataTypes: [SHOPS_IMPORTED],
  tables: ['shops'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events, tx) {
    await mergeImportedRecords(tx, events, 'shops', [{ column: 'external_id', expr: "r.rec->>'external_id'" }], undefined, endingRecord('r.rec'));
  },
};
