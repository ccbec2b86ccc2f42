import { coerceBoolean, coerceId, field, namesOf, RecordProblem, recordObject, type ImportKind } from '#mds/imports';
import { SHOP_FIELDS } from './shop.fields';

export const SHOPS_IMPORTED = 'ShopsImported';

/** Fields kept as sent that must be strings (shop.fields.ts). */
const STRING_FIELDS = namesOf(SHOP_FIELDS, 'string');
/** Booleans in any form a boolean is read (is_deleted), kept as true or false. */
const BOOLEAN_FIELDS = namesOf(SHOP_FIELDS, 'boolean');

export interface ShopRecord {
  external_id: string;
  [key: string]: unknown;
}

/**
 * A shop (the Magento plugin sends its store views): `external_id` required, `name` and any other
 * keys kept as sent; null means absent, "" removes a key on update. `is_deleted: true` ends the shop
 * until a later record of it comes without it.
 */
export const shopImport: ImportKind<ShopRecord> = {
  kind: 'shops',
  chunkEventType: SHOPS_IMPORTED,
  validate(raw) {
    const record = recordObject(raw, 'a shop');
    const externalId = field(record, 'external_id', coerceId);
    if (externalId === undefined) throw new RecordProblem('external_id', 'required', 'external_id is required');
    const out: ShopRecord = { external_id: externalId };
    for (const [key, value] of Object.entries(record)) {
      if (key === 'external_id' || value === null || value === undefined) continue;
      if (key.length > 200) throw new RecordProblem(key.slice(0, 50), 'invalid_key', 'keys are at most 200 characters');
      const v = BOOLEAN_FIELDS.has(key) ? field(record, key, coerceBoolean) : value;
      if (v !== undefined) out[key] = v;
    }
    for (const key of STRING_FIELDS) if (key in out && typeof out[key] !== 'string') throw new RecordProblem(key, 'invalid_type', `${key} must be a string`);
    return out;
  },
};
