import { LIMITS, type FieldSpec, type FieldTable, type RecordTable } from '#mds/imports';

export const BUILT_IN_EVENT_TYPES = ['BROWSE', 'MAIL_SUBSCRIBE', 'MAIL_UNSUBSCRIBE', 'ORDER_SHIPPED', 'BASKET_ADD', 'SENTIMENT', 'SMS_SUBSCRIBE', 'SMS_UNSUBSCRIBE'] as const;

/** A BROWSE event names at least one of these. */
export const BROWSE_FIELDS = ['label', 'product_ean', 'product_id', 'path', 'utm_campaign'] as const;

/** An event names its customer by at least one of these. */
export const EVENT_IDENTIFIERS = ['customer_id', 'phone_number', 'email', 'customer_token'] as const;

const text = (description: string, example: unknown): FieldSpec => ({ kind: 'text', description, example });
const key = (description: string, example: unknown): FieldSpec => ({ kind: 'key', description, example });

/** A customer event's fields (the spec's Event table): the import coerces by these kinds (event-import.ts). */
export const EVENT_FIELDS: FieldTable = {
  type: {
    kind: 'text',
    max: LIMITS.code,
    required: true,
    description: `The event type, any case: ${BUILT_IN_EVENT_TYPES.join(', ')}, or one of the settings' custom_event_types`,
    example: 'BROWSE',
  },
  date: { kind: 'datetime', required: true, description: 'When it happened', example: '2026-03-02T14:05:00+02:00' },
  customer_id: { kind: 'id', description: 'The customer\'s external_id', example: 'C-1001' },
  email: { kind: 'email', description: 'The customer\'s e-mail (MAIL_SUBSCRIBE creates a customer when none has it)', example: 'anna.virtanen@example.com' },
  phone_number: { kind: 'phone', description: 'The customer\'s phone (SMS_SUBSCRIBE creates a customer when none has it)', example: '+358401234567' },
  customer_token: key('The customer\'s `cb_token`', 'cbt-5f2a91'),
  label: text('Page label (BROWSE)', 'Trail shoes'),
  path: text('Browsed path (BROWSE)', '/shoes/trail'),
  utm_campaign: text('Campaign identifier (BROWSE, and optional on any type)', 'spring-2026'),
  utm_medium: text('UTM medium', 'email'),
  utm_content: text('UTM content', 'hero'),
  utm_source: text('UTM source', 'newsletter'),
  reason: text('Reason', 'price'),
  source: text('Source of the event', 'web'),
  first_name: text('Customer field accompanying a subscription', 'Anna'),
  last_name: text('Customer field accompanying a subscription', 'Virtanen'),
  street_address: text('Customer field accompanying a subscription', 'Mannerheimintie 12 B'),
  zip_code: text('Customer field accompanying a subscription', '00100'),
  country: text('Customer field accompanying a subscription', 'FI'),
  language: text('Customer field accompanying a subscription', 'fi'),
  company: text('Customer field accompanying a subscription', 'Example Oy'),
  product_title: text('The product\'s title, copied to a product created for product_id', 'Trail running shoe'),
  product_ean: key('The product\'s EAN (BROWSE; BASKET_ADD without product_id)', '6412345678901'),
  product_id: key('The product\'s external_id (BROWSE, BASKET_ADD); an unknown one creates the product', 'SKU-4411'),
  tracking_number: key('Shipping-company tracking number (ORDER_SHIPPED)', 'JJFI64123450012345'),
  sale_id: key('The sale_external_id of the sale shipped (ORDER_SHIPPED)', 'ORD-9001'),
  mailing_lists: { kind: 'list', description: 'Lists to join or leave (MAIL_SUBSCRIBE, MAIL_UNSUBSCRIBE; `["_"]` leaves every list)', example: ['weekly'] },
  tags: { kind: 'list', description: 'Tags', example: ['web'] },
  sentiment_value: { kind: 'integer', description: 'Survey result, usually 0 to 10 (SENTIMENT)', example: 8 },
};

export const EVENT_RECORD: RecordTable = {
  name: 'EventRecord',
  description:
    'A new customer event: type, date and one of customer_id, phone_number, email, customer_token. Per type: BROWSE needs one of ' +
    `${BROWSE_FIELDS.join(', ')}; MAIL_SUBSCRIBE and MAIL_UNSUBSCRIBE need mailing_lists; ORDER_SHIPPED needs tracking_number; BASKET_ADD product_id (or product_ean); ` +
    'SENTIMENT a whole-number sentiment_value. `id` and `is_deleted` are only for deletions (EventDeletion). `<COMPANY>__<field>` keys and other keys are kept.',
  fields: EVENT_FIELDS,
  identifiedBy: EVENT_IDENTIFIERS,
  keepsOtherKeys: true,
  examples: [
    { type: 'browse', date: '2026-03-02T14:05:00+02:00', customer_id: 'C-1001', product_id: 'SKU-4411', path: '/shoes/trail', utm_campaign: 'spring-2026' },
    { type: 'MAIL_SUBSCRIBE', date: '2026-03-02 14:07:00', email: 'anna.virtanen@example.com', mailing_lists: 'offers', first_name: 'Anna' },
    { type: 'ORDER_SHIPPED', date: '2026-03-06T09:00:00Z', customer_id: 'C-1001', sale_id: 'ORD-9001', tracking_number: 'JJFI64123450012345' },
    { type: 'SENTIMENT', date: '2026-03-09', customer_token: 'cbt-5f2a91', sentiment_value: '8', ACME__survey: 'nps-q1' },
  ],
};

/** `{id, is_deleted: true}`: deletes an event by the id retrieval shows. */
export const EVENT_DELETION_FIELDS: FieldTable = {
  id: { kind: 'integer', min: 1, pattern: '^\\s*\\d+\\s*$', required: true, description: 'The event\'s id, as data retrieval shows it', example: 17 },
  is_deleted: { kind: 'boolean', values: [true, 'true', 1], required: true, description: 'true: the event is deleted', example: true },
};

export const EVENT_DELETION_RECORD: RecordTable = {
  name: 'EventDeletion',
  description: 'Deletes an event: `{id, is_deleted: true}` and nothing else. An id no event has is the record error not_found.',
  fields: EVENT_DELETION_FIELDS,
  keepsOtherKeys: false,
  examples: [{ id: 17, is_deleted: true }],
};
