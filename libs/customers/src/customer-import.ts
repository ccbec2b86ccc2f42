import * as imports from '#mds/imports';
import type { ImportKind } from '#mds/imports';
import type { Settings } from '#mds/settings';
import { CUSTOMER_FIELDS } from './customer.fields';
import { validateCustomer } from './customer.schema';
import { CUSTOMERS_IMPORTED } from './customers.events';

// Bound once: used through the library's index, each helper would cost a re-export getter call at every use.
const { coerceBoolean, coerceDate, coerceDateTime, coerceId, coerceList, coerceString, field, normalizePhone, isCompanyField, namesOf, recordObject, assertUsableKey, LIMITS } = imports;

// The customer's named fields by kind (customer.fields.ts); text fields are taken up to LIMITS.shortText, the schema holds each to its own limit.
const STRING_FIELDS = namesOf(CUSTOMER_FIELDS, ['text', 'key']);
const BOOLEAN_FIELDS = namesOf(CUSTOMER_FIELDS, 'boolean');
const DATETIME_FIELDS = namesOf(CUSTOMER_FIELDS, 'datetime');
const LIST_FIELDS = namesOf(CUSTOMER_FIELDS, 'list');
/** Key of the normalised phone number carried in the event for matching ("$" keys are never customer fields). */
export const PHONE_KEY = '$phone';


export type CustomerRecord = Record<string, unknown>;

/**
 * Coerces one customer as plugins send it, then validates it with the compiled schema. `null` means absent, `""` removes a
 * string key on update (booleans: `""` is absent, lists: `""` is an empty list). Unknown keys and
 * `<COMPANY>__<field>` keys are kept (company names checked against the settings when listed).
 */
export function customerImport(settings: Settings): ImportKind<CustomerRecord> {
  // Made once, not for every field of every record.
  const longString = (v: unknown) => coerceString(v, LIMITS.shortText);
  const dateTime = (v: unknown) => coerceDateTime(v, settings.timezone);
  return {
    kind: 'customers',
    chunkEventType: CUSTOMERS_IMPORTED,
    personalFields: settings.personal_company_fields,
    validate(raw) {
      const r = recordObject(raw, 'a customer');
      const out: CustomerRecord = {};
      for (const key in r) {
        const value = r[key];
        if (value === null || value === undefined) continue;
        assertUsableKey(key);
        if (key === 'external_id') {
          const id = field(r, key, coerceId);
          if (id !== undefined) out.external_id = id;
        } else if (key === 'email') {
          const email = field(r, key, coerceString)?.trim();
          if (email !== undefined) out.email = email;
        } else if (key === 'phone_number') {
          const phone = field(r, key, coerceString)?.trim();
          if (phone === undefined) continue;
          // Kept as sent; matched on the normalised form (the schema refuses one with too few digits).
          if (phone !== '') out[PHONE_KEY] = normalizePhone(phone, settings.default_country) ?? phone;
          out.phone_number = phone;
        } else if (key === 'country') {
          const country = field(r, key, coerceString)?.trim();
          if (country !== undefined) out.country = country.toUpperCase();
        } else if (STRING_FIELDS.has(key)) {
          const s = field(r, key, longString);
          if (s !== undefined) out[key] = s;
        } else if (BOOLEAN_FIELDS.has(key)) {
          const b = field(r, key, coerceBoolean);
          if (b !== undefined) out[key] = b;
        } else if (DATETIME_FIELDS.has(key)) {
          const t = value === '' ? '' : field(r, key, dateTime);
          if (t !== undefined) out[key] = t;
        } else if (key === 'birth_date') {
          const d = value === '' ? '' : field(r, key, coerceDate);
          if (d !== undefined) out[key] = d;
        } else if (LIST_FIELDS.has(key)) {
          out[key] = value === '' ? [] : field(r, key, coerceList);
        } else {
          isCompanyField(key, settings); // checks a company key; any other key is kept as sent
          out[key] = value;
        }
      }
      validateCustomer(out);
      return out;
    },
  };
}
