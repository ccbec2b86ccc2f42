import { invalidRequest } from '#mds/platform';

/** The spec's sale states. CANCELLED and CLOSED are left out of statistics. */
export const SALE_STATES = ['NEW', 'PENDING_PAYMENT', 'PROCESSING', 'COMPLETE', 'CANCELLED', 'CLOSED', 'HOLDED'] as const;
export const STATES_OUT_OF_STATISTICS = ['CANCELLED', 'CLOSED'];

/** What plugins send (WooCommerce, Magento, custom shops), after upper-casing and `-`/space → `_`. */
const ALIASES: Record<string, string> = {
  COMPLETED: 'COMPLETE',
  SHIPPED: 'COMPLETE',
  DELIVERED: 'COMPLETE',
  CANCELED: 'CANCELLED',
  CANCEL: 'CANCELLED',
  FAILED: 'CANCELLED',
  REFUNDED: 'CLOSED',
  RETURNED: 'CLOSED',
  ON_HOLD: 'HOLDED',
  ONHOLD: 'HOLDED',
  HOLD: 'HOLDED',
  HELD: 'HOLDED',
  PENDING: 'PENDING_PAYMENT',
  PAYMENT_PENDING: 'PENDING_PAYMENT',
  PAYMENT_REVIEW: 'PENDING_PAYMENT',
  CHECKOUT_DRAFT: 'NEW',
  DRAFT: 'NEW',
  PROCESSED: 'PROCESSING',
};

/**
 * A sale state as the spec spells it: the enumeration as is (any case), the aliases above, and
 * WooCommerce's `wc-` prefix stripped. `known: false` for anything else, which is kept as sent.
 */
export function normalizeSaleState(raw: string): { state: string; known: boolean } {
  const key = raw.trim().toUpperCase().replace(/[-\s]+/g, '_').replace(/^WC_/, '');
  if ((SALE_STATES as readonly string[]).includes(key)) return { state: key, known: true };
  if (ALIASES[key]) return { state: ALIASES[key], known: true };
  return { state: raw.trim(), known: false };
}

/** A bulk update of sales (`POST /api/data/query/`) that sets sale_state sets it as an import would. */
export function saleUpdateRule(key: string, value: unknown): unknown {
  if (key !== 'sale_state') return value;
  if (typeof value !== 'string' || value.trim() === '') throw invalidRequest('update: sale_state must be a sale state such as COMPLETE or CANCELLED');
  return normalizeSaleState(value).state;
}
