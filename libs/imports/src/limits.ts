/**
 * What an imported value may be, for every datatype, in one place: the README's "Limits" table and
 * the OpenAPI record schemas are read from here. Each bound keeps what the read models compute from
 * an accepted record inside their column types (bigint cents, timestamptz, btree index entries), so a
 * record the log accepts is one every projection can apply.
 */
export const LIMITS = {
  /**
   * Money in integer cents, sent or computed (a row's unit price times quantity, totals, discounts,
   * prices converted from the sale's currency, a transaction's total over its rows): at most this in
   * size. Below 2^53, so JavaScript adds cents exactly; a transaction's rows summed stay far from bigint's end.
   */
  money: 1_000_000_000_000_000,
  /** A quantity, after rounding to two decimals, at most this in size. */
  quantity: 1_000_000_000,
  /** sale_exchange_rate: greater than 0, from this … */
  exchangeRateMin: 1e-9,
  /** … to this. */
  exchangeRateMax: 1e9,
  /**
   * Dates and datetimes, after conversion to UTC, lie in these years: ISO 8601's four-digit years,
   * which every client library reads back (PostgreSQL's own range is far wider).
   */
  yearMin: 1,
  yearMax: 9999,
  /** Identifiers and the values read models index (ids, keys, tokens, sku, ean, language): characters. */
  id: 256,
  /** Other text fields: characters. */
  text: 10_000,
  /** Named text fields of customers, sales and campaigns (names, addresses, methods): characters. */
  shortText: 1000,
  /** An e-mail address, and a phone number as sent: characters. */
  email: 320,
  phone: 64,
  /** Codes: an event type, a sale state, a campaign's kind and state: characters. */
  code: 64,
  /** Items of a list field (tags, mailing lists …), and characters of one item. */
  listItems: 1000,
  listItem: 1000,
  /** Rows of one sale transaction in one import. */
  saleRows: 1000,
  /** Records in one import request. */
  records: 50_000,
} as const;

/** Whole numbers print with thousands separators in messages (1,000,000,000,000,000). */
export const formatLimit = (n: number): string => (Number.isInteger(n) ? n.toLocaleString('en') : String(n));
