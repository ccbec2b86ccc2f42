import { LIMITS, type FieldSpec, type FieldTable, type RecordTable } from '#mds/imports';

const text = (description: string, example: unknown): FieldSpec => ({ kind: 'text', max: LIMITS.shortText, description, example });
const flag = (description: string, example = true): FieldSpec => ({ kind: 'boolean', description, example });
const list = (description: string, example: unknown): FieldSpec => ({ kind: 'list', description, example });

/**
 * A customer's fields (the spec's Customer table). The import coerces by these kinds and validates
 * with the schema made from this table (customer.schema.ts); the order is the order fields are checked in.
 */
export const CUSTOMER_FIELDS: FieldTable = {
  external_id: {
    kind: 'id',
    pattern: `^[A-Za-z0-9-]{1,${LIMITS.id}}$`,
    description: 'Unique customer identifier: letters, digits and dashes (a whole number is read as its digits). Matched first.',
    example: 'C-1001',
  },
  email: { kind: 'email', description: 'E-mail address, matched case-insensitively', example: 'anna.virtanen@example.com' },
  phone_number: {
    kind: 'phone',
    description: "Kept as sent and matched on `+<digits>`: international numbers as they are, local ones with the settings' default_country calling code",
    example: '+358401234567',
  },
  country: { kind: 'country', description: 'ISO 3166 two-letter country code, any case (kept upper-case)', example: 'FI' },
  birth_date: { kind: 'date', description: 'Birth date, `YYYY-MM-DD`', example: '1988-04-17' },
  date_joined: { kind: 'datetime', description: 'When the customer joined: a date or a timestamp', example: '2024-03-01T09:30:00Z' },
  last_login: { kind: 'datetime', description: 'Last login: a date or a timestamp', example: '2026-02-11 18:04:00' },
  tags: list('Tags: replace the customer\'s tags', ['vip', 'newsletter']),
  mailing_lists: list('Mailing-list identifiers: replace the customer\'s lists', ['weekly']),
  'tags.add': list('Tags to add to the customer\'s tags', ['spring-2026']),
  'tags.remove': list('Tags to remove', ['trial']),
  'mailing_lists.add': list('Mailing lists to join', ['offers']),
  'mailing_lists.remove': list('Mailing lists to leave', ['weekly']),
  can_email: flag('E-mail marketing permission (default false)'),
  can_post: flag('Postal-mail permission (default false)', false),
  can_profile: flag('Permission to be profiled (default false)'),
  can_push: flag('Push-message permission (default false)', false),
  can_sms: flag('SMS permission (default false)', false),
  is_deleted: flag('true removes the customer from retrieval for good; false or absent does not bring it back', false),
  is_forgotten: flag('true forgets the customer: personal data becomes redaction markers everywhere. Cannot be undone', false),
  canonical_id: text('Groups the records of one natural or legal person (kept as data)', 'P-77'),
  first_name: text('First name', 'Anna'),
  last_name: text('Last name', 'Virtanen'),
  shop_id: text('The shop the customer belongs to (a shop\'s external_id)', 'web-fi'),
  city: text('City', 'Helsinki'),
  company: text('Company', 'Example Oy'),
  gender: text('male, female, other, or free-form', 'female'),
  house_number: text('House number', '12'),
  house_number_addition: text('House number addition', 'B'),
  province: text('Province', 'Uusimaa'),
  street_address: text('Street address (instead of street_name + house_number + house_number_addition)', 'Mannerheimintie 12 B'),
  street_name: text('Street name', 'Mannerheimintie'),
  vat_number: text('VAT number', 'FI12345678'),
  zip_code: text('Postal code', '00100'),
  language: text('Language code', 'fi'),
  cb_token: { kind: 'key', description: 'The customer\'s token: what events send as `customer_token`', example: 'cbt-5f2a91' },
  consent_source: {
    kind: 'text',
    max: 200,
    description: 'Where the permissions or mailing lists this record changes were given (a form, a shop, a call): kept with the change in the consent history, not on the customer',
    example: 'checkout-form',
  },
};

/** A customer is found by the first of these it has (README: Customers, identity). */
export const CUSTOMER_IDENTIFIERS = ['external_id', 'phone_number', 'email'] as const;

export const CUSTOMER_RECORD: RecordTable = {
  name: 'CustomerRecord',
  description:
    'A customer to create or update. Needs one of external_id, phone_number, email; an already known one updates the customer: only the keys sent change, ' +
    '`""` removes a key, `null` is absent. `<COMPANY>__<field>` keys (company fields) and other keys are kept as sent.',
  fields: CUSTOMER_FIELDS,
  identifiedBy: CUSTOMER_IDENTIFIERS,
  keepsOtherKeys: true,
  examples: [
    {
      external_id: 'C-1001',
      email: 'anna.virtanen@example.com',
      phone_number: '+358401234567',
      first_name: 'Anna',
      last_name: 'Virtanen',
      country: 'fi',
      birth_date: '1988-04-17',
      date_joined: '2024-03-01T09:30:00Z',
      can_email: 'true',
      can_sms: 0,
      tags: 'vip,newsletter',
      mailing_lists: ['weekly'],
      cb_token: 'cbt-5f2a91',
      ACME__tier: 'gold',
    },
    { email: 'guest.buyer@example.com', first_name: 'Sam', can_email: 'yes', 'tags.add': ['spring-2026'] },
    { external_id: 1043, city: 'Espoo', last_login: '2026-02-11 18:04:00', 'mailing_lists.remove': 'weekly', zip_code: '' },
  ],
};
