import { LIMITS, type FieldSpec, type FieldTable, type RecordTable } from '#mds/imports';
import { SALE_STATES } from './sale-state';

const sale = (spec: Omit<FieldSpec, 'level'>): FieldSpec => ({ ...spec, level: 'transaction' });
const row = (spec: Omit<FieldSpec, 'level'>): FieldSpec => ({ ...spec, level: 'row' });

/**
 * A sale row's fields (the spec's Sale tables): `level` says whether a field is the transaction's
 * (whichever row carries it) or the row's. The import coerces by these kinds (sale-import.ts).
 */
export const SALE_FIELDS: FieldTable = {
  sale_external_id: sale({ kind: 'id', required: true, description: `The transaction: rows with the same sale_external_id form it (at most ${LIMITS.saleRows.toLocaleString('en')} rows in one import)`, example: 'ORD-9001' }),
  sale_date: sale({ kind: 'datetime', description: 'Required on some row (or from an earlier import): a date (the settings\' time zone applies) or a timestamp (its zone wins)', example: '2026-03-05T12:30:00Z' }),
  sale_customer_id: sale({ kind: 'id', description: 'The buyer\'s external_id (one of sale_customer_id, sale_phone_number, sale_email on some row)', example: 'C-1001' }),
  sale_email: sale({ kind: 'email', description: 'The buyer\'s e-mail', example: 'anna.virtanen@example.com' }),
  sale_phone_number: sale({ kind: 'phone', description: 'The buyer\'s phone', example: '+358401234567' }),
  sale_currency: sale({ kind: 'text', max: 3, pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 code of the prices sent `*_in_currency`, any case; given together with sale_exchange_rate', example: 'USD' }),
  sale_exchange_rate: sale({
    kind: 'number',
    min: LIMITS.exchangeRateMin,
    max: LIMITS.exchangeRateMax,
    description: 'Rate from sale_currency to the default currency (price in the default currency = price in currency / rate); given together with sale_currency',
    example: 1.08,
  }),
  sale_discount: sale({ kind: 'money', description: 'Discount on the whole purchase, in cents; counted by its size whatever the sign', example: -200 }),
  sale_shipping: sale({ kind: 'money', description: 'Shipping cost in cents (not part of sale_total)', example: 590 }),
  sale_shipping_in_currency: sale({ kind: 'money', description: 'Shipping in sale_currency, used instead of sale_shipping', example: 640 }),
  sale_total: sale({ kind: 'money', description: 'The transaction\'s total in cents; when absent, the rows\' totals less sale_discount', example: 2205 }),
  sale_payment_method: sale({ kind: 'text', max: LIMITS.shortText, description: 'Payment method', example: 'card' }),
  sale_shipping_method: sale({ kind: 'text', max: LIMITS.shortText, description: 'Shipping method', example: 'parcel-locker' }),
  sale_shop_id: sale({ kind: 'text', max: LIMITS.shortText, description: 'The shop\'s external_id', example: 'web-fi' }),
  sale_coupon_codes: sale({ kind: 'list', description: 'Coupon codes used', example: ['SPRING10'] }),
  sale_tags: sale({ kind: 'list', description: 'The transaction\'s tags (this service\'s earlier name; read as a header row\'s `tags`)', example: ['gift'] }),
  sale_state: sale({
    kind: 'text',
    max: LIMITS.code,
    description: `${SALE_STATES.join(', ')} (default COMPLETE), any case, and plugin spellings (COMPLETED, CANCELED, REFUNDED, wc-processing …); any other state is kept and listed in warnings`,
    example: 'COMPLETE',
  }),
  product_id: row({ kind: 'id', description: 'The product sold (its external_id); a row without product_id, product_sku or product_ean carries only transaction fields', example: 'SKU-4411' }),
  external_id: row({ kind: 'id', description: 'The row\'s identifier', example: 'ORD-9001-1' }),
  product_sku: row({ kind: 'id', description: 'Finds the product when product_id is missing', example: 'TRS-42-BLK' }),
  product_ean: row({ kind: 'id', description: 'Finds the product when product_id is missing', example: '6412345678901' }),
  quantity: row({ kind: 'quantity', description: 'Units, rounded half-up to 2 decimals; required on a row with a product', example: 2 }),
  unit_price: row({ kind: 'money', description: 'Price of one unit before discount, in cents; may be omitted when sale_total is sent', example: 1000 }),
  discount: row({ kind: 'money', description: 'The row\'s discount in cents, counted by its size whatever the sign', example: -100 }),
  total: row({ kind: 'money', description: 'The row\'s total in cents; when absent, round(unit_price × quantity) − discount', example: 1900 }),
  unit_price_in_currency: row({ kind: 'money', description: 'Unit price in sale_currency, used instead of unit_price', example: 1080 }),
  tags: row({ kind: 'list', description: 'The row\'s tags (`CANCELED` marks a returned row); on a row without a product, the transaction\'s', example: ['outlet'] }),
};

export const SALE_RECORD: RecordTable = {
  name: 'SaleRow',
  description:
    'One row of a sale transaction: rows with the same sale_external_id form it. Re-imported rows that all carry an external_id are upserted by it (rows not sent stay); rows without one replace the transaction\'s rows; a header row alone keeps them. `sale_*` fields and `<COMPANY>__<field>` keys are the ' +
    'transaction\'s whichever row carries them (a later row wins); other keys are the row\'s. Per transaction: sale_date and one of sale_customer_id, sale_phone_number, sale_email ' +
    'on some row (or from an earlier import); sale_currency and sale_exchange_rate together. A rejected row rejects its transaction. Money in cents of the default currency.',
  fields: SALE_FIELDS,
  keepsOtherKeys: true,
  examples: [
    {
      sale_external_id: 'ORD-9001',
      sale_date: '2026-03-05T12:30:00Z',
      sale_customer_id: 'C-1001',
      sale_email: 'anna.virtanen@example.com',
      sale_discount: -200,
      sale_shipping: 590,
      sale_payment_method: 'card',
      sale_coupon_codes: 'SPRING10',
      sale_state: 'complete',
      ACME__channel: 'web',
    },
    { sale_external_id: 'ORD-9001', external_id: 'ORD-9001-1', product_id: 'SKU-4411', quantity: 2, unit_price: 1000, discount: -100 },
    { sale_external_id: 'ORD-9001', external_id: 'ORD-9001-2', product_sku: 'TRS-42-BLK', quantity: '1.005', unit_price: '500' },
    {
      sale_external_id: 'ORD-9002',
      sale_date: '2026-03-06',
      sale_email: 'guest.buyer@example.com',
      sale_currency: 'usd',
      sale_exchange_rate: 2,
      sale_state: 'wc-processing',
      product_id: 'SKU-4411',
      quantity: 1,
      unit_price_in_currency: 4000,
    },
  ],
};
