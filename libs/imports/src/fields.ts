import type Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import { LIMITS } from './limits';

/** An e-mail address as the imports check it: something, an @, something with a dot. */
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$';
export const EMAIL = new RegExp(EMAIL_PATTERN);

/**
 * What a field of an imported record takes, by kind: how the import coerces it, and so what a client
 * may send. Each datatype states its fields once, in a table (`libs/<context>/src/<datatype>.fields.ts`):
 * its import reads its field lists and limits from the table, and the API's OpenAPI document turns the
 * same table into the record's JSON schema, so the two cannot disagree.
 */
export type FieldKind =
  /** A string or a whole number (`1043` → "1043"), trimmed. */
  | 'id'
  /** A string the read models index or join by (tokens, sku, ean …). */
  | 'key'
  /** A string; a number or a boolean is read as its text. */
  | 'text'
  /** A string kept as sent, with no limit of its own (the request's hold). */
  | 'string'
  | 'email'
  /** As sent; matched on `+<digits>`. */
  | 'phone'
  /** A two-letter code, any case, kept upper-case. */
  | 'country'
  /** Integer cents, or a numeric string of them (`3400.0` is 3400; a fraction of a cent is an error). */
  | 'money'
  /** A number or a numeric string, rounded to 2 decimals. */
  | 'quantity'
  /** A number or a numeric string. */
  | 'number'
  /** A whole number or a numeric string of one. */
  | 'integer'
  /** true/false, "true"/"false", "1"/"0", 1/0, "yes"/"no" ("" is absent). */
  | 'boolean'
  /** `YYYY-MM-DD` (a timestamp's date is taken). */
  | 'date'
  /** A date or an ISO 8601 timestamp, with or without a zone (without: the settings' time zone). */
  | 'datetime'
  /** An array of strings, a single string or a comma-joined string. */
  | 'list'
  /** A string kept as sent; a list is joined with ", ". */
  | 'joined'
  /** An object of `members`. */
  | 'object'
  /** A list of objects of `members`. */
  | 'objects'
  /** Any JSON, kept as sent. */
  | 'any';

export interface FieldSpec {
  kind: FieldKind;
  description: string;
  example: unknown;
  /** Characters (strings), items (lists) or size (numbers); absent: the kind's limit (see maxOf). */
  max?: number;
  /** The smallest number taken. */
  min?: number;
  /** What a string must look like (as sent, trimmed, and so once coerced). */
  pattern?: string;
  /** Sent on every record (conditional requirements are in the record's description). */
  required?: boolean;
  /** The only values taken. */
  values?: readonly unknown[];
  /** The members of an `object`, or of each item of `objects`. */
  members?: FieldTable;
  /** An `object` whose other keys are refused. */
  closed?: boolean;
  /** Sales only: whether the field is the transaction's (whichever row carries it) or the row's. */
  level?: 'transaction' | 'row';
}

export type FieldTable = Readonly<Record<string, FieldSpec>>;

/** A datatype's record: its field table and what holds for the record as a whole. */
export interface RecordTable {
  /** The schema's name in the OpenAPI document, e.g. `CustomerRecord`. */
  name: string;
  description: string;
  fields: FieldTable;
  /** At least one of these is sent. */
  identifiedBy?: readonly string[];
  /** Keys not in the table are kept as sent (true) or refused (false). */
  keepsOtherKeys: boolean;
  /** Realistic records the import accepts, as a client sends them: the first is the record's example, all of them an upload's. */
  examples: ReadonlyArray<Record<string, unknown>>;
}

/** A field kind's limit when its spec names none. */
export function maxOf(spec: FieldSpec): number | undefined {
  if (spec.max !== undefined) return spec.max;
  switch (spec.kind) {
    case 'id':
    case 'key':
      return LIMITS.id;
    case 'text':
    case 'joined':
      return LIMITS.text;
    case 'email':
      return LIMITS.email;
    case 'phone':
      return LIMITS.phone;
    case 'money':
      return LIMITS.money;
    case 'quantity':
      return LIMITS.quantity;
    case 'list':
    case 'objects':
      return LIMITS.listItems;
    default:
      return undefined;
  }
}

/** The names of a table's fields of these kinds (or matching a test), for an import's dispatch. */
export function namesOf(table: FieldTable, match: FieldKind | readonly FieldKind[] | ((spec: FieldSpec) => boolean)): Set<string> {
  const test = typeof match === 'function' ? match : (spec: FieldSpec) => (typeof match === 'string' ? [match] : match).includes(spec.kind);
  return new Set(Object.keys(table).filter((name) => test(table[name])));
}

type Schema = Record<string, unknown>;

/**
 * `schema` compiled by Ajv when first used, not when its module loads: Ajv and the compile take ~0.2 s
 * of CPU, which every process that never checks such a record (an `mds` command, a test file) would pay.
 */
export function compiledOnFirstUse(schema: object): () => ValidateFunction {
  let compiled: ValidateFunction | undefined;
  return () => (compiled ??= new (require('ajv') as { default: typeof Ajv }).default({ allErrors: false, strict: false }).compile(schema));
}

/**
 * A record's fields as the import has coerced them, as a JSON schema (for Ajv): the "validate" half of
 * "coerce, then validate", for the imports that check their records with a compiled schema.
 */
export function coercedSchema(table: FieldTable): { type: 'object'; required?: string[]; properties: Record<string, Schema> } {
  const required = Object.keys(table).filter((name) => table[name].required);
  const properties = Object.fromEntries(Object.entries(table).map(([name, spec]) => [name, coercedField(spec)]));
  return { type: 'object', ...(required.length > 0 ? { required } : {}), properties };
}

const DATETIME_COERCED: Schema = { type: 'string', anyOf: [{ const: '' }, { pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?Z$' }] };

function coercedField(spec: FieldSpec): Schema {
  const max = maxOf(spec);
  switch (spec.kind) {
    case 'id':
      return spec.pattern ? { type: 'string', pattern: spec.pattern } : { type: 'string', maxLength: max };
    case 'key':
    case 'text':
    case 'phone':
      return { type: 'string', maxLength: max, ...(spec.pattern ? { pattern: spec.pattern } : {}) };
    case 'email':
      return { type: 'string', maxLength: max, anyOf: [{ const: '' }, { pattern: spec.pattern ?? EMAIL_PATTERN }] };
    case 'country':
      return { type: 'string', pattern: '^([A-Z]{2})?$' };
    case 'date':
      return { type: 'string', pattern: '^(\\d{4}-\\d{2}-\\d{2})?$' };
    case 'datetime':
      return DATETIME_COERCED;
    case 'list':
      return { type: 'array', items: { type: 'string', minLength: 1, maxLength: LIMITS.listItem }, maxItems: max };
    case 'boolean':
      return { type: 'boolean' };
    case 'money':
    case 'integer':
      return { type: 'integer' };
    case 'number':
    case 'quantity':
      return { type: 'number' };
    case 'joined':
      return { type: 'string', maxLength: max };
    case 'string':
      return { type: 'string' };
    case 'object':
      return coercedObject(spec);
    case 'objects':
      return { type: 'array', maxItems: max, items: coercedObject(spec) };
    case 'any':
      return {};
  }
}

function coercedObject(spec: FieldSpec): Schema {
  const members = spec.members ?? {};
  const required = Object.keys(members).filter((m) => members[m].required);
  return {
    type: 'object',
    ...(required.length > 0 ? { required } : {}),
    ...(spec.closed ? { additionalProperties: false } : {}),
    properties: coercedSchema(members).properties,
  };
}
