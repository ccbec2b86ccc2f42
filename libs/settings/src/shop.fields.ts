import type { FieldTable, RecordTable } from '#mds/imports';

/** A shop's fields (the Magento plugin's store views): the import reads them by these kinds (shops.ts). */
export const SHOP_FIELDS: FieldTable = {
  external_id: { kind: 'id', required: true, description: 'The shop\'s identifier: what customers, products and sales name as shop_id', example: 'web-fi' },
  name: { kind: 'string', description: 'The shop\'s name', example: 'Web shop (Finnish)' },
  is_deleted: { kind: 'boolean', description: 'true: the shop leaves retrieval and exports (kept; `?include_deleted=true` shows it); the next import of it without is_deleted brings it back', example: true },
};

export const SHOP_RECORD: RecordTable = {
  name: 'ShopRecord',
  description: 'A shop (store view) to create or update by external_id. Other keys are kept as sent; `null` is absent, `""` removes a key.',
  fields: SHOP_FIELDS,
  keepsOtherKeys: true,
  examples: [
    { external_id: 'web-fi', name: 'Web shop (Finnish)', locale: 'fi_FI', currency: 'EUR' },
    { external_id: 2, name: 'Web shop (Swedish)', locale: 'sv_SE' },
  ],
};
