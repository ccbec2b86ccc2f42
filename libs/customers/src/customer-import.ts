import * as imports from '#mds/imports';
import type { ImportKind } from '#mds/imports';
import type { Settings } from '#mds/settings';
import { validateCustomer } from './customer.schema';
import { CUSTOMERS_IMPORTED } from './customers.events';

// Bound once: used through the library's index, each helper would cost a re-export getter call at every use.
const { coerceBoolean, coerceDate, coerceDateTime, coerceId, coerceList, coerceString, field, normalizePhone, isCompanyField, recordObject, assertUsableKey } = imports;

const STRING_FIELDS = new Set([
  'canonical_id', 'first_name', 'last_name', 'shop_id', 'city', 'company', 'gender', 'house_number', 'house_number_addition',
  'province', 'street_address', 'street_name', 'vat_number', 'zip_code', 'cb_token', 'language',
]);
const BOOLEAN_FIELDS = new Set(['can_email', 'can_post', 'can_profile', 'can_push', 'can_sms', 'is_deleted', 'is_forgotten']);
const DATETIME_FIELDS = new Set(['date_joined', 'last_login']);
const LIST_FIELDS = new Set(['tags', 'mailing_lists', 'tags.add', 'tags.remove', 'mailing_lists.add', 'mailing_lists.remove']);
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
  const longString = (v: unknown) => coerceString(v, 1000);
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
