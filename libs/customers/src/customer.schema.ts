import type { ErrorObject } from 'ajv';
import { coercedSchema, compiledOnFirstUse, RecordProblem } from '#mds/imports';
import { CUSTOMER_FIELDS, CUSTOMER_IDENTIFIERS } from './customer.fields';

/**
 * The Customer resource after coercion, as a JSON schema made from CUSTOMER_FIELDS and compiled once
 * by Ajv: the "validate" half of "coerce, then validate". Unknown keys are allowed (kept as sent).
 */
export const CUSTOMER_SCHEMA = {
  type: 'object',
  properties: Object.fromEntries(
    Object.entries(coercedSchema(CUSTOMER_FIELDS).properties).flatMap(([name, schema]) =>
      // The normalised phone (a matching aid) is checked right after the phone as sent.
      name === 'phone_number' ? [[name, schema], ['$phone', { type: 'string', pattern: '^\\+?\\d{3,}$' }]] : [[name, schema]],
    ),
  ),
  anyOf: CUSTOMER_IDENTIFIERS.map((name) => ({ required: [name], properties: { [name]: { minLength: 1 } } })),
};

const validator = compiledOnFirstUse(CUSTOMER_SCHEMA);

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
  const validate = validator();
  if (!validate(record)) throw problem(validate.errors![0]);
}
