import { MAX_MESSAGES_PER_POST } from '#mds/datatargets';
import { BOOLEAN_WORDS, DATE_PATTERN, MONEY_STRING, DATETIME_PATTERN, LIMITS, maxOf, NUMERIC_STRING, type FieldSpec, type FieldTable, type RecordTable } from '#mds/imports';
import { UPLOAD_ROUTES, type UploadDatatype } from '../imports/uploads';

/**
 * The import records of the OpenAPI document, made from the contexts' field tables (the tables their
 * imports read): each field as a client may send it (the lenient forms the import coerces), with its
 * limits from LIMITS, a description and an example; and each upload's body, `{customers: [...]}` …
 */
type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const numericString: Schema = { type: 'string', pattern: NUMERIC_STRING, description: 'the number as a string' };
/** A word in any case: `true` → `[Tt][Rr][Uu][Ee]` (JSON Schema patterns take no flags). */
const anyCase = (word: string) => [...word].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join('');
const booleanString: Schema = { type: 'string', pattern: `^\\s*(${[...BOOLEAN_WORDS.true, ...BOOLEAN_WORDS.false].map(anyCase).join('|')})?\\s*$` };
const unanchored = (pattern: string) => pattern.replace(/^\^/, '').replace(/\$$/, '');
const dateOrTime: Schema = { type: 'string', pattern: `^(${unanchored(DATE_PATTERN)}|${unanchored(DATETIME_PATTERN)})$` };
const listItem: Schema = { oneOf: [{ type: 'string', maxLength: LIMITS.listItem }, { type: 'number' }] };

/** One field as a client may send it. */
export function fieldSchema(spec: FieldSpec): Schema {
  const about = { description: spec.description, example: spec.example };
  if (spec.values) return { enum: [...spec.values], ...about };
  const max = maxOf(spec);
  const pattern = spec.pattern ? { pattern: spec.pattern } : {};
  const bounds = { ...(spec.min !== undefined ? { minimum: spec.min } : {}), ...(spec.max !== undefined ? { maximum: spec.max } : {}) };
  switch (spec.kind) {
    case 'id':
      return { oneOf: [{ type: 'string', minLength: 1, maxLength: max, ...pattern }, { type: 'integer' }], ...about };
    case 'key':
    case 'text':
    case 'email':
    case 'phone':
      return { type: 'string', maxLength: max, ...pattern, ...about };
    case 'joined':
      return { oneOf: [{ type: 'string', maxLength: max }, { type: 'array', maxItems: LIMITS.listItems, items: listItem }], ...about };
    case 'string':
      return { type: 'string', ...about };
    case 'country':
      return { type: 'string', pattern: '^\\s*[A-Za-z]{2}\\s*$', ...about };
    case 'money':
      return { oneOf: [{ type: 'integer', minimum: -max!, maximum: max }, { type: 'string', pattern: MONEY_STRING }], ...about };
    case 'quantity':
      return { oneOf: [{ type: 'number', minimum: -max!, maximum: max }, numericString], ...about };
    case 'number':
      return { oneOf: [{ type: 'number', ...bounds }, numericString], ...about };
    case 'integer':
      return { oneOf: [{ type: 'integer', ...bounds }, { ...numericString, ...pattern }], ...about };
    case 'boolean':
      return { oneOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }, booleanString], ...about };
    case 'date':
    case 'datetime':
      return { ...dateOrTime, ...about };
    case 'list':
      return { oneOf: [{ type: 'array', maxItems: max, items: listItem }, { type: 'string', description: 'one item, or items joined with commas' }], ...about };
    case 'object':
      return { ...objectSchema(spec), ...about };
    case 'objects':
      return { type: 'array', maxItems: max, items: objectSchema(spec), ...about };
    case 'any':
      return about;
  }
}

function objectSchema(spec: FieldSpec): Schema {
  const members = spec.members ?? {};
  return { type: 'object', ...required(members), properties: properties(members), ...(spec.closed ? { additionalProperties: false } : {}) };
}

const properties = (table: FieldTable) => Object.fromEntries(Object.entries(table).map(([name, spec]) => [name, fieldSchema(spec)]));
const required = (table: FieldTable) => {
  const names = Object.keys(table).filter((name) => table[name].required);
  return names.length > 0 ? { required: names } : {};
};

/** A record's schema: its fields, what is required, whether other keys are kept. */
export function recordSchema(record: RecordTable): Schema {
  return {
    type: 'object',
    description: record.description,
    ...required(record.fields),
    properties: properties(record.fields),
    additionalProperties: record.keepsOtherKeys,
    // For readers and linters; a generator sees plain optional properties (an `anyOf` of `required` lists would make it a union type).
    ...(record.identifiedBy ? { 'x-identified-by': [...record.identifiedBy] } : {}),
    example: record.examples[0],
  };
}

const UPLOAD_NAMES: Record<UploadDatatype, string> = {
  customers: 'CustomersUpload',
  products: 'ProductsUpload',
  events: 'EventsUpload',
  sales: 'SalesUpload',
  shops: 'ShopsUpload',
  campaigns: 'CampaignsUpload',
  campaign_events: 'CampaignEventsUpload',
};

const items = (datatype: UploadDatatype): Schema => {
  const records = UPLOAD_ROUTES[datatype].records;
  return records.length === 1 ? ref(records[0].name) : { oneOf: records.map((r) => ref(r.name)) };
};
const recordList = (datatype: UploadDatatype): Schema => ({
  type: 'array',
  maxItems: LIMITS.records,
  description: `At most ${LIMITS.records.toLocaleString('en')} records (413 beyond); an empty list or null imports none`,
  items: items(datatype),
});
/** What an upload's example sends: every example record of its datatype (not deletions, which need an id that exists). */
const exampleBody = (datatype: UploadDatatype) => ({ [UPLOAD_ROUTES[datatype].bodyKey]: UPLOAD_ROUTES[datatype].records[0].examples });

/** The record schemas and upload bodies, for the document's components. */
export function recordComponents(): Record<string, Schema> {
  const schemas: Record<string, Schema> = {};
  for (const datatype of Object.keys(UPLOAD_ROUTES) as UploadDatatype[]) {
    const route = UPLOAD_ROUTES[datatype];
    for (const record of route.records) schemas[record.name] = recordSchema(record);
    schemas[UPLOAD_NAMES[datatype]] = {
      type: 'object',
      properties: { [route.bodyKey]: recordList(datatype) },
      example: exampleBody(datatype),
    };
  }
  schemas.DatatargetMessage = { type: 'object', additionalProperties: true, description: 'A JSON object of free structure, defined by the target system', example: { order: 'ORD-9001', status: 'shipped' } };
  schemas.DatatargetMessages = {
    type: 'object',
    required: ['messages'],
    additionalProperties: false,
    properties: { messages: { type: 'array', minItems: 1, maxItems: MAX_MESSAGES_PER_POST, items: ref('DatatargetMessage') } },
    example: { messages: [{ order: 'ORD-9001', status: 'shipped' }, { order: 'ORD-9002', status: 'packed' }] },
  };
  return schemas;
}

/** An upload operation's request body: the datatype's upload (or, for events, the bare list the integration guide sends), with an example to send. */
export function uploadBody(datatype: UploadDatatype) {
  const route = UPLOAD_ROUTES[datatype];
  const body = ref(UPLOAD_NAMES[datatype]);
  return {
    schema: route.allowBareList ? { oneOf: [body, recordList(datatype)] } : body,
    examples: {
      records: { summary: 'Records as plugins send them, lenient forms included', value: exampleBody(datatype) },
      ...(route.allowBareList ? { bare_list: { summary: 'The bare list the integration guide sends', value: route.records[0].examples.slice(0, 1) } } : {}),
    },
  };
}

/** The legacy datasource import: the body of the datasource's datatype. */
export function datasourceImportBody() {
  const datatypes: UploadDatatype[] = ['customers', 'products', 'events', 'sales'];
  // anyOf: `{}` and a body of one datatype match the others' bodies too (their keys are optional).
  return { schema: { anyOf: [...datatypes.map((d) => ref(UPLOAD_NAMES[d])), recordList('events')] } };
}
