import * as imports from '#mds/imports';
import {
  RecordProblem,
  type ImportKind,
} from '#mds/imports';
import type { Settings } from '#mds/settings';
import { PRODUCT_FIELDS } from './product.fields';

// Bound once: used through the library's index, each helper would cost a re-export getter call at every use.
const { coerceBoolean, coerceDateTime, coerceId, coerceList, coerceMoney, coerceNumber, coerceString, field, maxOf, namesOf, recordObject, assertUsableKey, LIMITS } = imports;

export const PRODUCTS_IMPORTED = 'ProductsImported';

// The product's fields by kind (product.fields.ts), each taken up to its own limit.
const MONEY_FIELDS = namesOf(PRODUCT_FIELDS, 'money');
/** Strings; those the read models index (products by sku and ean, rows by language) are `key`s, at most LIMITS.id characters. */
const STRING_FIELDS = namesOf(PRODUCT_FIELDS, ['text', 'key']);
const BOOLEAN_FIELDS = namesOf(PRODUCT_FIELDS, 'boolean');
const LIST_FIELDS = namesOf(PRODUCT_FIELDS, 'list');
/** Strings in the spec, which some plugins send as lists: kept as sent, a list joined with ", " (README: products). */
const JOINED_FIELDS = namesOf(PRODUCT_FIELDS, 'joined');
export const JOINED_LIST_SEPARATOR = ', ';

export type ProductRecord = Record<string, unknown> & { external_id: string };

function stockList(value: unknown): Array<{ shop_id: string; quantity: number }> {
  if (!Array.isArray(value)) throw new RecordProblem('stock', 'invalid_stock', 'stock: a list of {shop_id, quantity}');
  return value.map((item, i) => {
    if (typeof item !== 'object' || item === null) throw new RecordProblem('stock', 'invalid_stock', `stock[${i}]: an object {shop_id, quantity}`);
    const o = item as Record<string, unknown>;
    const shopId = field(o, 'shop_id', coerceId);
    const quantity = field(o, 'quantity', coerceNumber);
    if (shopId === undefined || quantity === undefined) throw new RecordProblem('stock', 'invalid_stock', `stock[${i}]: shop_id and quantity are required`);
    return { shop_id: shopId, quantity };
  });
}

/** A string kept as sent (numbers as their text); a list's items joined with ", " (empty ones left out). */
export function joinedString(value: unknown): string | undefined {
  if (!Array.isArray(value)) return coerceString(value, LIMITS.text);
  return (coerceList(value) ?? []).join(JOINED_LIST_SEPARATOR);
}

/**
 * Products as plugins send them: prices in cents (`3400.0` → 3400, `price: 0` for parent products,
 * `sale_price: 0` for no sale), category and category_id as the strings sent (a list joined), ids as
 * arrays or comma-joined strings, main_product_ids as integers, stock as [{shop_id, quantity}]; other keys kept. A row with a `language` is that
 * language's variant of the product (README: per-language rows).
 */
export function productImport(settings: Settings): ImportKind<ProductRecord> {
  return {
    kind: 'products',
    chunkEventType: PRODUCTS_IMPORTED,
    validate(raw) {
      const r = recordObject(raw, 'a product');
      const externalId = field(r, 'external_id', coerceId);
      if (externalId === undefined) throw new RecordProblem('external_id', 'required', 'external_id is required');
      const out: ProductRecord = { external_id: externalId };
      for (const [key, value] of Object.entries(r)) {
        if (key === 'external_id' || value === null || value === undefined) continue;
        assertUsableKey(key);
        let v: unknown;
        if (MONEY_FIELDS.has(key)) v = field(r, key, coerceMoney);
        else if (STRING_FIELDS.has(key)) v = field(r, key, (x) => coerceString(x, maxOf(PRODUCT_FIELDS[key])));
        else if (BOOLEAN_FIELDS.has(key)) v = field(r, key, coerceBoolean);
        else if (LIST_FIELDS.has(key)) v = value === '' ? [] : field(r, key, coerceList);
        else if (JOINED_FIELDS.has(key)) v = field(r, key, joinedString);
        else if (key === 'date') v = value === '' ? '' : field(r, key, (x) => coerceDateTime(x, settings.timezone));
        else if (key === 'stock') v = stockList(value);
        else v = value;
        if (v !== undefined) out[key] = v;
      }
      if (typeof out.language === 'string') out.language = out.language.trim();
      return out;
    },
  };
}
