import Ajv, { type ErrorObject } from 'ajv';
import { LIMITS, RecordProblem } from '#mds/imports';

const str = (max: number) => ({ type: 'string', maxLength: max });
const list = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 1000 }, maxItems: 10_000 };
const datetime = { type: 'string', anyOf: [{ const: '' }, { pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?Z$' }] };

/**
 * The Customer resource after coercion, as a JSON schema compiled once by Ajv: the "validate" half
 * of "coerce, then validate". Unknown keys are allowed (kept as sent).
 */
export const CUSTOMER_SCHEMA = {
  type: 'object',
  properties: {
    external_id: { type: 'string', pattern: '^[A-Za-z0-9-]{1,256}$' },
    email: { type: 'string', maxLength: 320, anyOf: [{ const: '' }, { pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' }] },
    phone_number: str(64),
    $phone: { type: 'string', pattern: '^\\+?\\d{3,}$' },
    country: { type: 'string', pattern: '^([A-Z]{2})?$' },
    birth_date: { type: 'string', pattern: '^(\\d{4}-\\d{2}-\\d{2})?$' },
    date_joined: datetime,
    last_login: datetime,
    tags: list,
    mailing_lists: list,
    'tags.add': list,
    'tags.remove': list,
    'mailing_lists.add': list,
    'mailing_lists.remove': list,
    ...Object.fromEntries(['can_email', 'can_post', 'can_profile', 'can_push', 'can_sms', 'is_deleted', 'is_forgotten'].map((k) => [k, { type: 'boolean' }])),
    ...Object.fromEntries(
      ['canonical_id', 'first_name', 'last_name', 'shop_id', 'city', 'company', 'gender', 'house_number', 'house_number_addition', 'province', 'street_address', 'street_name', 'vat_number', 'zip_code', 'language'].map((k) => [k, str(1000)]),
    ),
    // Indexed (customers are found by it): at most LIMITS.id characters.
    cb_token: str(LIMITS.id),
  },
  anyOf: [
    { required: ['external_id'] },
    { required: ['phone_number'], properties: { phone_number: { minLength: 1 } } },
    { required: ['email'], properties: { email: { minLength: 1 } } },
  ],
} as const;

const ajv = new Ajv({ allErrors: false, strict: false });
const validateCompiled = ajv.compile(CUSTOMER_SCHEMA);

const MESSAGES: Record<string, string> = {
  pattern: 'has an invalid format',
  maxLength: 'is too long',
  minLength: 'must not be empty',
  type: 'has the wrong type',
  anyOf: 'has an invalid value',
  maxItems: 'has too many items',
};

/** Stable codes and wording for the fields clients most often get wrong. */
const FIELD_PROBLEMS: Record<string, [string, string]> = {
  external_id: ['invalid_external_id', 'letters, numbers and dashes only'],
  email: ['invalid_email', 'is not an e-mail address'],
  country: ['invalid_country', 'a two-letter country code'],
  phone_number: ['invalid_phone', 'has too few digits'],
};

function problem(error: ErrorObject): RecordProblem {
  const field = error.instancePath.split('/')[1]?.replace(/~1/g, '/').replace(/~0/g, '~') || null;
  // At the root only the identifier rule (anyOf of required) can fail; Ajv reports its first branch.
  if (!field || (error.schemaPath.startsWith('#/anyOf') && error.instancePath.split('/').length <= 2)) {
    return new RecordProblem(null, 'missing_identifier', 'a customer needs at least one of external_id, phone_number, email');
  }
  const name = field === '$phone' ? 'phone_number' : field;
  const known = name && error.keyword !== 'type' ? FIELD_PROBLEMS[name] : undefined;
  if (known) return new RecordProblem(name, known[0], `${name}: ${known[1]}`);
  return new RecordProblem(name, `invalid_${error.keyword}`, `${name}: ${MESSAGES[error.keyword] ?? error.message ?? 'is invalid'}`);
}

/** Validates a coerced customer record; throws a RecordProblem naming the first bad field. */
export function validateCustomer(record: Record<string, unknown>): void {
  if (!validateCompiled(record)) throw problem(validateCompiled.errors![0]);
}
