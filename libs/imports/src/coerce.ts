import { formatLimit, LIMITS } from './limits';

/**
 * Lenient coercion of the values e-commerce plugins send (coerce, then validate). Each function
 * returns the coerced value, `undefined` for "absent" (null, and "" where the spec treats it so),
 * or throws CoercionError with a stable code and a message naming what was expected.
 */
export class CoercionError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function coerceString(value: unknown, max: number = LIMITS.text): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') throw new CoercionError('invalid_type', `expected a string, got ${describe(value)}`);
  if (value.length > max) throw new CoercionError('too_long', `at most ${max} characters`);
  return value;
}

/** Identifiers: strings or integers (`1043` → "1043"); a fraction or an empty value is an error. */
export function coerceId(value: unknown, max: number = LIMITS.id): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new CoercionError('invalid_id', `an id must be a string or a whole number, got ${value}`);
    return String(value);
  }
  if (typeof value !== 'string') throw new CoercionError('invalid_type', `expected an id (string or whole number), got ${describe(value)}`);
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (trimmed.length > max) throw new CoercionError('too_long', `at most ${max} characters`);
  return trimmed;
}

/** The words a boolean may be sent as, in any case (the OpenAPI record schemas list them too). */
export const BOOLEAN_WORDS = { true: ['true', '1', 'yes'], false: ['false', '0', 'no'] } as const;

/** true/false, "true"/"false", "1"/"0", 1/0 ("yes"/"no" too); "" and null are absent. */
export function coerceBoolean(value: unknown): boolean | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if ((BOOLEAN_WORDS.true as readonly string[]).includes(v)) return true;
    if ((BOOLEAN_WORDS.false as readonly string[]).includes(v)) return false;
  }
  throw new CoercionError('invalid_boolean', `expected true or false, got ${describe(value)}`);
}

/** The most items a list field (tags, mailing lists …) may have. */
export const MAX_LIST_ITEMS = LIMITS.listItems;

/** Lists as an array, a single string, or a comma-joined string; empty entries dropped. */
export function coerceList(value: unknown): string[] | undefined {
  if (value === null || value === undefined) return undefined;
  const items = Array.isArray(value) ? value : typeof value === 'string' || typeof value === 'number' ? String(value).split(',') : undefined;
  if (!items) throw new CoercionError('invalid_list', `expected a list or a comma-separated string, got ${describe(value)}`);
  if (items.length > MAX_LIST_ITEMS) throw new CoercionError('invalid_list', `a list may have at most ${MAX_LIST_ITEMS} items, not ${items.length}`);
  // Each item once, in the order first sent. One array and no more for the usual short list (tags of
  // every record of an import); a Set once a list is long enough for looking through it to cost.
  const out: string[] = [];
  let seen: Set<string> | undefined;
  for (let i = 0; i < items.length; i++) {
    const s = coerceString(items[i], LIMITS.listItem);
    if (s === undefined) throw new CoercionError('invalid_list', `item ${i} is empty`);
    const item = s.trim();
    if (item === '' || (seen ? seen.has(item) : out.includes(item))) continue;
    out.push(item);
    if (seen) seen.add(item);
    else if (out.length >= 16) seen = new Set(out);
  }
  return out;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`.slice(0, 80);
}

/** A number sent as a string (`"2.0000"`, `" 1e3 "`): what coerceNumber reads, and the record schemas' pattern for it. */
export const NUMERIC_STRING = '^\\s*[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?\\s*$';
const NUMERIC = new RegExp(NUMERIC_STRING);

/** Numbers as numbers or numeric strings (`"2.0000"` → 2); "" is absent. */
export function coerceNumber(value: unknown): number | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const n = typeof value === 'number' ? value : typeof value === 'string' && NUMERIC.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n)) throw new CoercionError('invalid_number', `expected a number, got ${describe(value)}`);
  return n;
}

/** Money sent as text: whole cents, digits only (and an exponent): no decimal point. */
export const MONEY_STRING = '^\\s*[+-]?\\d+([eE][+]?\\d+)?\\s*$';
const MONEY_TEXT = new RegExp(MONEY_STRING);

/**
 * Money in integer minor units (cents): `3400`, `"3400"` (and the number `3400.0`, which JSON cannot
 * tell from 3400) → 3400. A fractional cent (`34.5`) is an error, not rounded; so is a string with a
 * decimal point (`"5.00"`): it reads like 5.00 in currency units, which would be 5 cents here.
 */
export function coerceMoney(value: unknown): number | undefined {
  if (typeof value === 'string' && value.trim() !== '' && !MONEY_TEXT.test(value) && value.includes('.')) {
    const cents = Number(value) * 100;
    const hint = Number.isFinite(cents) && Number.isSafeInteger(Math.round(cents)) ? `send ${Math.round(cents)} for ${value.trim()}` : 'send whole cents';
    throw new CoercionError('decimal_money', `money is in whole cents, sent as a number or digits; ${JSON.stringify(value.trim()).slice(0, 40)} has a decimal point: ${hint}`);
  }
  const n = coerceNumber(value);
  if (n === undefined) return undefined;
  if (!Number.isInteger(n)) throw new CoercionError('fractional_cents', `money is in whole cents; ${n} has a fraction of a cent`);
  if (Math.abs(n) > LIMITS.money) throw new CoercionError('out_of_range', `money is at most ${formatLimit(LIMITS.money)} cents in size; ${n} is beyond it`);
  return n;
}
