import * as imports from '#mds/imports';
import {
  RecordProblem,
  type FieldKind,
  type FieldSpec,
  type FinishedRecords,
  type ImportKind,
  type RecordError,
} from '#mds/imports';
import type { Settings } from '#mds/settings';
import { SALE_FIELDS } from './sale.fields';
import { normalizeSaleState } from './sale-state';

// Bound once: used through the library's index, each helper would cost a re-export getter call at every use.
const { coerceDateTime, coerceId, coerceList, coerceMoney, coerceNumber, coerceString, field, formatLimit, isCompanyField, maxOf, namesOf, normalizePhone, recordObject, assertUsableKey, EMAIL } = imports;
const { LIMITS } = imports;

export const SALES_IMPORTED = 'SalesImported';

/** A sale record's personal fields, in its `fields`: the buyer's contact details (see PERSONAL_FIELDS in libs/runtime). */
export const SALE_PERSONAL_FIELDS = ['fields.sale_email', 'fields.sale_phone_number', 'fields.$phone', 'fields.$customer_id'] as const;

/**
 * A copy of sale_customer_id kept with a transaction's personal fields, so forgetting the customer
 * finds them when the sale names the customer by external id alone ("$" keys are never shown).
 */
export const SALE_CUSTOMER_KEY = '$customer_id';
/** SALE_PERSONAL_FIELDS as keys of a transaction's fields (flat, as the sales read model keeps them). */
export const TRANSACTION_PERSONAL_FIELDS = SALE_PERSONAL_FIELDS.map((f) => f.slice('fields.'.length));

/** One row of a sale transaction as stored: money in cents in the default currency, quantity to 2 decimals, total computed. */
export type SaleRow = Record<string, unknown> & { quantity?: number; unit_price?: number; discount: number; total: number };

/** What a chunk of a sales import carries: one record per transaction of the request. */
export interface SaleTransaction {
  sale_external_id: string;
  /** Transaction-level fields sent in this import (merged over earlier imports of the transaction). */
  fields: Record<string, unknown>;
  /** The transaction's rows, which `rows_mode` lays over those of earlier imports. */
  rows: SaleRow[];
  /**
   * Absent: the rows replace the transaction's (rows without an external_id). `upsert`: each row
   * replaces the one with its external_id, or is added; rows not sent stay. `keep`: no row was sent
   * (a header row alone), the transaction keeps its rows.
   */
  rows_mode?: 'upsert' | 'keep';
  /** `sale_total` when this import sends it; otherwise the total is the rows' totals minus the sale discount. */
  sale_total?: number;
}

/** One validated row of the request, split into transaction-level and row-level fields. */
interface ValidatedRow {
  sale_external_id: string;
  fields: Record<string, unknown>;
  row: Record<string, unknown>;
  item: boolean;
  unknownState?: string;
  /** Row-level keys of a row without a product, which has no row to keep them (a warning each). */
  leftOut?: string[];
}

// The row's fields by kind and level (sale.fields.ts), each taken up to its own limit.
const transaction = (kind: FieldKind) => namesOf(SALE_FIELDS, (f) => f.kind === kind && f.level === 'transaction');
const ofRow = (kind: FieldKind) => namesOf(SALE_FIELDS, (f) => f.kind === kind && f.level === 'row');
const MONEY_FIELDS = transaction('money');
/** sale_currency and sale_state among them have rules of their own, read before these. */
const STRING_FIELDS = transaction('text');
const LIST_FIELDS = transaction('list');
/** The normalised form of sale_phone_number, kept for matching ("$" keys are never shown). */
export const SALE_PHONE_KEY = '$phone';
const ROW_MONEY = ofRow('money');
const ROW_IDS = ofRow('id');
const ROW_LISTS = ofRow('list');
const CURRENCY = new RegExp(SALE_FIELDS.sale_currency.pattern!);
const RATE = SALE_FIELDS.sale_exchange_rate as Required<Pick<FieldSpec, 'min' | 'max'>>;

export interface SaleImportDeps {
  /** For transactions of the request that lack them: whether an earlier import gave them a date and a customer (read-your-writes). */
  knownTransactions(ids: string[]): Promise<Map<string, { hasDate: boolean; hasCustomer: boolean }>>;
  /**
   * The rows these transactions have now (their external_id and total), for those whose import
   * upserts rows: the totals and row count the read model will compute. As the read model stands
   * (not waiting for it): a bound, not read-your-writes. Absent: not checked.
   */
  rowsNow?(ids: string[]): Promise<Map<string, Array<{ external_id?: string; total: number }>>>;
}

/** Rounded to 2 decimals, halves away from zero, as the decimal that was sent (1.005 → 1.01, 0.003 → 0). */
export function roundQuantity(q: number): number {
  return (Math.sign(q) * Math.round(Math.abs(q) * 100 + 1e-7)) / 100;
}

const roundCents = (x: number) => Math.sign(x) * Math.round(Math.abs(x));

/** A quantity within LIMITS.quantity once rounded to 2 decimals (as the row keeps it). */
function coerceQuantity(value: unknown): number | undefined {
  const q = coerceNumber(value);
  if (q !== undefined && Math.abs(roundQuantity(q)) > LIMITS.quantity) {
    throw new imports.CoercionError('out_of_range', `a quantity is at most ${formatLimit(LIMITS.quantity)} in size; ${q} is beyond it`);
  }
  return q;
}

/** Money the import computes (a row total, a converted price, a transaction total) within LIMITS.money, else the field it came from is named. */
function computedMoney(cents: number, fieldName: string, how: string): number {
  if (!(Math.abs(cents) <= LIMITS.money)) {
    throw new RecordProblem(fieldName, 'out_of_range', `${how} is ${cents} cents, beyond the limit of ${formatLimit(LIMITS.money)} cents in size`);
  }
  return cents;
}

/**
 * A price sent in the sale's currency, used instead of the default-currency one (the spec's
 * `unit_price_in_currency`, `sale_shipping_in_currency`): divided by the exchange rate and rounded to
 * the cent. `disagrees` when a default-currency price was sent too and is more than a cent away.
 */
export function fromSaleCurrency(inCurrency: number, rate: number, sent?: number): { cents: number; disagrees: boolean } {
  const cents = roundCents(inCurrency / rate);
  return { cents, disagrees: sent !== undefined && Math.abs(sent - cents) > 1 };
}

function validateRow(r: Record<string, unknown>, settings: Settings): ValidatedRow {
  const id = field(r, 'sale_external_id', coerceId);
  if (id === undefined) throw new RecordProblem('sale_external_id', 'required', 'sale_external_id is required on every row');
  const fields: Record<string, unknown> = {};
  const row: Record<string, unknown> = {};
  let unknownState: string | undefined;
  for (const [key, value] of Object.entries(r)) {
    if (key === 'sale_external_id' || value === null || value === undefined) continue;
    assertUsableKey(key);
    if (key === 'sale_date') fields[key] = field(r, key, (v) => coerceDateTime(v, settings.timezone));
    else if (key === 'sale_customer_id') fields[key] = field(r, key, coerceId);
    else if (key === 'sale_email') fields[key] = field(r, key, (v) => coerceString(v, maxOf(SALE_FIELDS.sale_email)))?.trim().toLowerCase() || undefined;
    else if (key === 'sale_phone_number') {
      const phone = field(r, key, (v) => coerceString(v, maxOf(SALE_FIELDS.sale_phone_number)))?.trim();
      if (phone) {
        fields[key] = phone;
        fields[SALE_PHONE_KEY] = normalizePhone(phone, settings.default_country) ?? phone;
      }
    } else if (key === 'sale_currency') {
      const c = field(r, key, (v) => coerceString(v, SALE_FIELDS.sale_currency.max))?.trim().toUpperCase();
      if (c !== undefined && c !== '' && !CURRENCY.test(c)) throw new RecordProblem(key, 'invalid_currency', `"${c}" is not an ISO 4217 currency code`);
      fields[key] = c || undefined;
    } else if (key === 'sale_exchange_rate') {
      const rate = field(r, key, coerceNumber);
      if (rate !== undefined && !(rate > 0)) throw new RecordProblem(key, 'invalid_rate', 'sale_exchange_rate must be a positive number');
      if (rate !== undefined && (rate < RATE.min || rate > RATE.max)) {
        throw new RecordProblem(key, 'out_of_range', `sale_exchange_rate is from ${RATE.min} to ${formatLimit(RATE.max)}; ${rate} is beyond it`);
      }
      fields[key] = rate;
    } else if (key === 'sale_state') {
      const s = field(r, key, (v) => coerceString(v, SALE_FIELDS.sale_state.max))?.trim();
      if (s) {
        const { state, known } = normalizeSaleState(s);
        fields[key] = state;
        if (!known) unknownState = state;
      }
    } else if (MONEY_FIELDS.has(key)) fields[key] = field(r, key, coerceMoney);
    else if (STRING_FIELDS.has(key)) fields[key] = field(r, key, (v) => coerceString(v, maxOf(SALE_FIELDS[key])))?.trim() || undefined;
    else if (key === 'sale_tags') fields.tags = field(r, key, coerceList); // read as the transaction's tags (the spec's name)
    else if (LIST_FIELDS.has(key)) fields[key] = field(r, key, coerceList);
    else if (key === 'quantity') row[key] = field(r, key, coerceQuantity);
    else if (ROW_MONEY.has(key)) row[key] = field(r, key, coerceMoney);
    else if (ROW_IDS.has(key)) row[key] = field(r, key, coerceId);
    else if (ROW_LISTS.has(key)) row[key] = field(r, key, coerceList);
    else if (key.startsWith('sale_') || isCompanyField(key, settings)) fields[key] = value; // other sale_ keys and company fields: the whole transaction
    else row[key] = value;
  }
  for (const o of [fields, row]) for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  const item = row.product_id !== undefined || row.product_sku !== undefined || row.product_ean !== undefined;
  if (item && row.quantity === undefined) throw new RecordProblem('quantity', 'required', 'quantity is required on a row with a product');
  if (!item && (row.quantity !== undefined || row.unit_price !== undefined || row.unit_price_in_currency !== undefined)) {
    throw new RecordProblem('product_id', 'required', 'a row with a quantity or price needs product_id (or product_sku / product_ean)');
  }
  let leftOut: string[] | undefined;
  if (!item) {
    // A header row (Magento's): its tags are the transaction's; it has no row for anything else.
    if (row.tags !== undefined) fields.tags = row.tags;
    leftOut = Object.keys(row).filter((k) => k !== 'tags');
  }
  if (typeof fields.sale_email === 'string' && !EMAIL.test(fields.sale_email)) {
    throw new RecordProblem('sale_email', 'invalid_email', `"${fields.sale_email}" is not an e-mail address`);
  }
  return { sale_external_id: id, fields, row, item, unknownState, ...(leftOut?.length ? { leftOut } : {}) };
}

/**
 * Sale rows combined into transactions by sale_external_id. Transaction-level fields apply whichever
 * row carries them (a later row overrides an earlier one); a row without a product only carries them.
 * Checked per transaction: a date and a customer identifier (on some row, or from an earlier import),
 * currency and rate together. A rejected row rejects its whole transaction, since an import replaces
 * the transaction's rows. Money is computed here (see README: sales): rows' unit prices converted from
 * the sale currency, quantities rounded half-up to 2 decimals, discounts counted by their size whatever
 * their sign, row totals `unit_price * quantity - discount` (0 for a row tagged CANCELED).
 */
export function saleImport(settings: Settings, deps: SaleImportDeps): ImportKind<ValidatedRow> {
  return {
    kind: 'sales',
    chunkEventType: SALES_IMPORTED,
    // Company fields apply to the whole transaction (its fields): the personal ones are kept apart there.
    personalFields: settings.personal_company_fields.map((f) => `fields.${f}`),
    validate(raw) {
      return validateRow(recordObject(raw, 'a sale row'), settings);
    },
    async finish(accepted, request): Promise<FinishedRecords> {
      const errors: RecordError[] = [];
      const warnings: RecordError[] = [];
      const groups = new Map<string, Array<{ index: number; record: ValidatedRow }>>();
      for (const a of accepted) {
        const group = groups.get(a.record.sale_external_id);
        if (group) group.push(a);
        else groups.set(a.record.sale_external_id, [a]);
      }
      // A rejected row rejects its transaction: an import replaces the rows, so a partial one would lose rows.
      for (const e of request.errors) {
        const id = transactionIdOf(request.records[e.index]);
        const rows = id === undefined ? undefined : groups.get(id);
        if (!rows) continue;
        groups.delete(id!);
        for (const r of rows) errors.push({ index: r.index, field: null, code: 'transaction_rejected', message: `transaction ${id}: row ${e.index} was rejected, so is the transaction` });
      }
      // Transaction-level fields of each transaction: whichever row carries them, a later row winning.
      const fieldsOf = new Map([...groups].map(([id, rows]) => [id, Object.assign({}, ...rows.map((r) => r.record.fields)) as Record<string, unknown>]));
      const hasCustomer = (f: Record<string, unknown>) => ['sale_customer_id', 'sale_phone_number', 'sale_email'].some((k) => f[k] !== undefined);
      // Only transactions lacking a date or a customer need an earlier import of theirs.
      const lacking = [...fieldsOf].filter(([, f]) => f.sale_date === undefined || !hasCustomer(f)).map(([id]) => id);
      const known = lacking.length > 0 ? await deps.knownTransactions(lacking) : new Map<string, { hasDate: boolean; hasCustomer: boolean }>();
      const records: SaleTransaction[] = [];
      const made: MadeTransaction[] = [];
      for (const [id, rows] of groups) {
        const fields = fieldsOf.get(id)!;
        const reject = (problem: string, fieldName: string | null, code: string) => {
          for (const r of rows) errors.push({ index: r.index, field: fieldName, code, message: `transaction ${id}: ${problem}` });
        };
        const earlier = known.get(id);
        if (fields.sale_date === undefined && !earlier?.hasDate) {
          reject('sale_date is required on some row of the transaction (or an earlier import of it)', 'sale_date', 'required');
          continue;
        }
        if (!hasCustomer(fields) && !earlier?.hasCustomer) {
          reject('one of sale_customer_id, sale_phone_number, sale_email is required on some row (or an earlier import of it)', 'sale_customer_id', 'missing_identifier');
          continue;
        }
        if ((fields.sale_currency === undefined) !== (fields.sale_exchange_rate === undefined)) {
          reject('sale_currency and sale_exchange_rate are given together or not at all', fields.sale_currency === undefined ? 'sale_currency' : 'sale_exchange_rate', 'invalid_currency');
          continue;
        }
        const rate = fields.sale_exchange_rate as number | undefined;
        const converted: RecordError[] = [];
        // `*_in_currency` is used instead of the default-currency price; one sent too that disagrees is said.
        const inCurrency = (index: number, name: string, target: string, o: Record<string, unknown>) => {
          if (o[name] === undefined) return;
          if (rate === undefined) throw new RecordProblem(name, 'invalid_currency', `${name} needs sale_currency and sale_exchange_rate in the same import`);
          const sent = o[target] as number | undefined;
          const { cents, disagrees } = fromSaleCurrency(o[name] as number, rate, sent);
          computedMoney(cents, name, `${name} ${o[name]} / sale_exchange_rate ${rate}`);
          if (disagrees) {
            converted.push({ index, field: target, code: 'currency_mismatch', message: `${target} ${sent} disagrees with ${name} ${o[name]} / sale_exchange_rate ${rate} = ${cents} by more than a cent; ${cents} is used` });
          }
          o[target] = cents;
        };
        try {
          // The row that sent the sale's shipping in its currency (the last one: a later row wins).
          const shippingRow = rows.findLast((r) => r.record.fields.sale_shipping_in_currency !== undefined);
          inCurrency(shippingRow?.index ?? rows[0].index, 'sale_shipping_in_currency', 'sale_shipping', fields);
          if (typeof fields.sale_discount === 'number') fields.sale_discount = Math.abs(fields.sale_discount);
          const itemRows = rows.filter((r) => r.record.item);
          if (itemRows.length > LIMITS.saleRows) {
            throw new RecordProblem('sale_external_id', 'too_many_rows', `a transaction has at most ${formatLimit(LIMITS.saleRows)} rows in one import; this one has ${itemRows.length}`);
          }
          const items = itemRows.map((r) => {
            const row = { ...r.record.row };
            inCurrency(r.index, 'unit_price_in_currency', 'unit_price', row);
            if (row.unit_price === undefined && fields.sale_total === undefined) {
              throw new RecordProblem('unit_price', 'required', 'unit_price is required on each row unless sale_total is sent');
            }
            const quantity = roundQuantity(row.quantity as number);
            const discount = Math.abs((row.discount as number | undefined) ?? 0);
            const cancelled = ((row.tags as string[] | undefined) ?? []).some((t) => t.toUpperCase() === 'CANCELED' || t.toUpperCase() === 'CANCELLED');
            const computed = row.unit_price === undefined ? 0 : roundCents((row.unit_price as number) * quantity) - discount;
            if (row.total === undefined) computedMoney(computed, 'unit_price', `row ${r.index}: unit_price × quantity − discount`);
            const total = cancelled ? 0 : ((row.total as number | undefined) ?? computed);
            return { ...row, quantity, discount, total } as SaleRow;
          });
          const withId = items.filter((row) => row.external_id !== undefined).length;
          if (withId > 0 && withId < items.length) {
            throw new RecordProblem('external_id', 'mixed_rows', 'rows of one transaction either all carry external_id (each then replaces the row with its id, or is added; rows not sent stay) or none (they then replace the transaction\'s rows)');
          }
          const mode = items.length === 0 ? 'keep' : withId > 0 ? 'upsert' : undefined;
          made.push({ id, mode, items, fields, indexes: rows.map((r) => r.index) });
          const { sale_total: saleTotal, ...rest } = fields;
          if (rest.sale_customer_id !== undefined && [...TRANSACTION_PERSONAL_FIELDS, ...settings.personal_company_fields].some((k) => rest[k] !== undefined)) {
            rest[SALE_CUSTOMER_KEY] = rest.sale_customer_id;
          }
          records.push({ sale_external_id: id, fields: rest, rows: items, ...(mode ? { rows_mode: mode } : {}), ...(saleTotal !== undefined ? { sale_total: saleTotal as number } : {}) });
          warnings.push(...converted);
          for (const r of rows) {
            if (r.record.unknownState) {
              warnings.push({ index: r.index, field: 'sale_state', code: 'unknown_state', message: `"${r.record.unknownState}" is not a known sale state; kept as sent and counted in statistics` });
            }
            for (const key of r.record.leftOut ?? []) {
              warnings.push({ index: r.index, field: key, code: 'ignored_field', message: `${key} belongs to a row with a product; a row without product_id, product_sku or product_ean carries only the transaction's fields and tags, so it was left out` });
            }
          }
        } catch (err) {
          if (!(err instanceof RecordProblem)) throw err;
          reject(err.message, err.field, err.code);
        }
      }
      return checkTotals(records, made, errors, warnings, deps);
    },
  };
}

/**
 * The total the read model computes for each transaction that sends no sale_total (its rows'
 * totals less the sale discount) within LIMITS.money, and at most LIMITS.saleRows rows once laid over
 * the rows it has (an upsert adds to them); a transaction beyond either is rejected whole.
 */
async function checkTotals(
  records: SaleTransaction[],
  made: MadeTransaction[],
  errors: RecordError[],
  warnings: RecordError[],
  deps: SaleImportDeps,
): Promise<FinishedRecords> {
  const upserts = made.filter((m) => m.mode === 'upsert').map((m) => m.id);
  const now = upserts.length > 0 && deps.rowsNow ? await deps.rowsNow(upserts) : new Map<string, Array<{ external_id?: string; total: number }>>();
  const refused = new Map<string, string>();
  for (const m of made) {
    let rows: Array<{ external_id?: unknown; total: number }> = m.items;
    if (m.mode === 'upsert') {
      const sent = new Map(m.items.map((r) => [String(r.external_id), r]));
      const kept = (now.get(m.id) ?? []).filter((r) => r.external_id === undefined || !sent.has(r.external_id));
      rows = [...kept, ...sent.values()];
      if (rows.length > LIMITS.saleRows) refused.set(m.id, `transaction ${m.id}: a transaction has at most ${formatLimit(LIMITS.saleRows)} rows; with these it would have ${rows.length}`);
    }
    if (m.fields.sale_total === undefined && !refused.has(m.id)) {
      const sum = rows.reduce((t, row) => t + row.total, 0) - ((m.fields.sale_discount as number | undefined) ?? 0);
      try {
        computedMoney(sum, 'sale_total', `transaction ${m.id}: its total (its rows' totals less sale_discount)`);
      } catch (err) {
        refused.set(m.id, (err as Error).message);
      }
    }
  }
  if (refused.size === 0) return { records, errors, warnings };
  // Every row of a refused transaction is an error; its warnings go with it.
  const gone = new Set(made.filter((m) => refused.has(m.id)).flatMap((m) => m.indexes));
  return {
    records: records.filter((r) => !refused.has(r.sale_external_id)),
    errors: [...errors, ...made.filter((m) => refused.has(m.id)).flatMap((m) => m.indexes.map((index) => ({ index, field: 'sale_total', code: 'out_of_range', message: refused.get(m.id)! })))],
    warnings: warnings.filter((w) => !gone.has(w.index)),
  };
}

/** A transaction of the request as made, for the checks on what the read model will compute. */
interface MadeTransaction {
  id: string;
  mode: 'upsert' | 'keep' | undefined;
  items: SaleRow[];
  fields: Record<string, unknown>;
  indexes: number[];
}

function transactionIdOf(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const id = (raw as Record<string, unknown>).sale_external_id;
  return typeof id === 'string' ? id.trim() : typeof id === 'number' ? String(id) : undefined;
}
