import type { FieldSpec, FieldTable, RecordTable } from '#mds/imports';

const money = (description: string, example: unknown): FieldSpec => ({ kind: 'money', description, example });
const text = (description: string, example: unknown): FieldSpec => ({ kind: 'text', description, example });
const flag = (description: string, example: unknown): FieldSpec => ({ kind: 'boolean', description, example });

/** A product row's fields (the spec's Product table): the import coerces by these kinds (product-import.ts). */
export const PRODUCT_FIELDS: FieldTable = {
  external_id: { kind: 'id', required: true, description: 'The product\'s identifier: what events and sale rows name as product_id', example: 'SKU-4411' },
  price: money('Price in cents (0 for parent products)', 4990),
  sale_price: money('Sale price in cents (0: no sale)', '3990'),
  lowest_price: money('Lowest price in cents', 3490),
  price_before_campaign: money('Price before the campaign, in cents', 5490),
  highest_price: money('Highest price in cents', 5990),
  type: text('Product type', 'simple'),
  vendor: text('Vendor', 'Example Oy'),
  brand: text('Brand', 'Trailhead'),
  title: text('Title', 'Trail running shoe'),
  description: text('Description', 'Light shoe for rough trails.'),
  unit: text('Unit', 'pair'),
  weight: text('Weight, as text', '0.6 kg'),
  shop_id: text('The shop\'s external_id', 'web-fi'),
  image: text('Image URL', 'https://shop.example.com/img/4411.jpg'),
  url: text('Product page URL', 'https://shop.example.com/p/4411'),
  ean: { kind: 'key', description: 'EAN: events and sale rows without product_id are linked by it', example: '6412345678901' },
  sku: { kind: 'key', description: 'SKU: sale rows without product_id are linked by it', example: 'TRS-42-BLK' },
  language: { kind: 'key', description: 'A row with a language is that language\'s variant of the product; one row per (external_id, language)', example: 'fi' },
  visible: flag('Shown in the shop', true),
  exclude_from_recommendations: flag('Never recommended', 'false'),
  in_stock: flag('In stock', 1),
  is_deleted: flag('true: the row leaves retrieval and exports (kept for statistics, linking and history; `?include_deleted=true` shows it); the next import of its key without it brings it back', true),
  recommendation_set_ids: { kind: 'list', description: 'Recommendation sets of the product', example: ['running'] },
  tags: { kind: 'list', description: 'Tags', example: 'new,outdoor' },
  main_product_ids: { kind: 'list', description: 'The parent products of a variant (integers are read as their digits)', example: [4400] },
  category: { kind: 'joined', description: 'Category, kept as sent (`"Shoes, Running"` stays one string); a list is joined with ", "', example: 'Shoes, Running' },
  category_id: { kind: 'joined', description: 'Category id(s), kept as sent; a list is joined with ", "', example: ['12', '13'] },
  date: { kind: 'datetime', description: 'When the product was added or changed', example: '2026-01-15T08:00:00Z' },
  stock: {
    kind: 'objects',
    description: 'Stock per shop; other keys of an item are dropped',
    example: [{ shop_id: 'web-fi', quantity: 12 }],
    members: {
      shop_id: { kind: 'id', required: true, description: 'The shop\'s external_id', example: 'web-fi' },
      quantity: { kind: 'number', required: true, description: 'Units in stock', example: 12 },
    },
  },
};

export const PRODUCT_RECORD: RecordTable = {
  name: 'ProductRecord',
  description:
    'A product row to create or update, by external_id (and language: a row with one is that language\'s variant). Rows of one product in one request apply in order, key by key; ' +
    '`null` is absent. Other keys are kept as sent.',
  fields: PRODUCT_FIELDS,
  keepsOtherKeys: true,
  examples: [
    { external_id: 'SKU-4400', title: 'Trail running shoe', price: 0, category: ['Shoes', 'Running'], visible: true },
    {
      external_id: 'SKU-4411',
      title: 'Trail running shoe, black, 42',
      price: 4990,
      sale_price: '3990',
      category: 'Shoes, Running',
      category_id: [12, 13],
      ean: '6412345678901',
      sku: 'TRS-42-BLK',
      main_product_ids: ['SKU-4400'],
      in_stock: '1',
      tags: 'new,outdoor',
      stock: [{ shop_id: 'web-fi', quantity: 12 }],
      url: 'https://shop.example.com/p/4411',
      colour: 'black',
    },
    { external_id: 'SKU-4411', language: 'fi', title: 'Polkujuoksukenkä, musta, 42', url: 'https://shop.example.com/fi/p/4411' },
  ],
};
