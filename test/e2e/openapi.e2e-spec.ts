import Ajv, { type ValidateFunction } from 'ajv';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer, Reflector } from '@nestjs/core';
import { EVENT_DELETION_RECORD, EVENT_RECORD } from '#mds/activity';
import { ACCESS_RULE, PASSWORD_LOGIN, type AccessRule } from '#mds/api';
import { CAMPAIGN_EVENT_RECORD, CAMPAIGN_RECORD } from '#mds/campaigns';
import { PRODUCT_RECORD } from '#mds/catalog';
import { CUSTOMER_RECORD } from '#mds/customers';
import { LIMITS, type RecordTable } from '#mds/imports';
import { PROJECTIONS } from '#mds/projections';
import { SALE_RECORD } from '#mds/sales';
import { SHOP_RECORD } from '#mds/settings';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';

// The OpenAPI document as a client generator reads it: each operation's security is the access rule
// its route declares, every import record is a schema made from its datatype's field table (the one
// the import reads), and every example in the document is valid by its schema and, for uploads,
// accepted by the API as sent.

type Schema = Record<string, unknown>;
interface Operation {
  key: string;
  method: string;
  path: string;
  op: Schema & { tags?: string[]; security?: Array<Record<string, string[]>>; parameters?: Schema[]; requestBody?: { content: Record<string, Media> } };
}
interface Media {
  schema: Schema;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}

/** The routes as Nest has them, with the access rule each declares (what PermissionsGuard reads). */
function routeRules(api: TestApi): Map<string, { rule: AccessRule | undefined; password: boolean }> {
  const reflector = api.app.get(Reflector);
  const rules = new Map<string, { rule: AccessRule | undefined; password: boolean }>();
  for (const module of api.app.get(ModulesContainer, { strict: false }).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!type) continue;
      const bases = [Reflect.getMetadata(PATH_METADATA, type) as string | string[]].flat();
      for (const name of Object.getOwnPropertyNames(type.prototype)) {
        const handler = (type.prototype as Record<string, unknown>)[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (paths === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        const rule = reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [handler, type]);
        const password = reflector.getAllAndOverride<boolean>(PASSWORD_LOGIN, [handler, type]) === true;
        for (const base of bases) {
          for (const path of [paths].flat()) {
            const full = `/${[base, path].filter(Boolean).join('/')}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1').replace(/:(\w+)/g, '{$1}');
            rules.set(`${method} ${full}`, { rule, password });
          }
        }
      }
    }
  }
  return rules;
}

/** OpenAPI 3.0 schema → a JSON schema Ajv checks: `nullable`, and the components inlined. */
function jsonSchema(s: unknown, components: Record<string, Schema>): unknown {
  if (Array.isArray(s)) return s.map((x) => jsonSchema(x, components));
  if (!s || typeof s !== 'object') return s;
  const o = s as Schema;
  if (typeof o.$ref === 'string') return jsonSchema(components[o.$ref.split('/').pop()!], components);
  const out: Schema = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === 'nullable' || k === 'example' || k === 'description' || k.startsWith('x-')) continue;
    // `properties` maps names to schemas: a field may be called `example` or `description`.
    out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as Schema).map(([name, p]) => [name, jsonSchema(p, components)])) : jsonSchema(v, components);
  }
  return o.nullable ? { anyOf: [out, { type: 'null' }] } : out;
}

/** Every schema (and subschema) that carries an `example`, with where it is. */
function* withExamples(schema: unknown, where: string): Generator<[string, Schema]> {
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Schema;
  if ('example' in s) yield [where, s];
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) for (const [i, sub] of ((s[key] as unknown[]) ?? []).entries()) yield* withExamples(sub, `${where}.${key}[${i}]`);
  if (s.items) yield* withExamples(s.items, `${where}[]`);
  for (const [name, sub] of Object.entries((s.properties as Schema) ?? {})) yield* withExamples(sub, `${where}.${name}`);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') yield* withExamples(s.additionalProperties, `${where}.*`);
}

/** The record schemas a request body's lists take, by name (through $refs, oneOf and anyOf). */
function recordsOf(schema: unknown, components: Record<string, Schema>): Array<[string, Schema]> {
  if (!schema || typeof schema !== 'object') return [];
  const resolve = (x: Schema): [string, Schema] => (typeof x.$ref === 'string' ? [x.$ref.split('/').pop()!, components[x.$ref.split('/').pop()!]] : ['(inline)', x]);
  const [, s] = resolve(schema as Schema);
  const alternatives = [...((s.oneOf as Schema[]) ?? []), ...((s.anyOf as Schema[]) ?? [])].flatMap((sub) => recordsOf(sub, components));
  if (s.type === 'array') return [...alternatives, ...(((s.items as Schema).oneOf as Schema[] | undefined) ?? [s.items as Schema]).map(resolve)];
  if (s.type === 'object') return [...alternatives, ...Object.values((s.properties as Record<string, Schema>) ?? {}).flatMap((p) => recordsOf(p, components))];
  return alternatives;
}

/** The order uploads are sent in: what a record names is imported before it (shops, customers, products, then the sales events ship). */
const UPLOAD_ORDER = [/\/shops\//, /\/customers?\//, /\/products?\//, /\/sales?\//, /\/api\/events?\//, /\/campaigns\/upload/, /\/campaigns\/events\//];

describe('the OpenAPI document', () => {
  let api: TestApi;
  let token: string;
  let doc: { tags: Array<{ name: string }>; paths: Record<string, Record<string, Operation['op']>>; components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Schema> } };
  let operations: Operation[];
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const compiled = new Map<unknown, ValidateFunction>();
  const validate = (schema: unknown) => {
    let v = compiled.get(schema);
    if (!v) compiled.set(schema, (v = ajv.compile(jsonSchema(schema, doc.components.schemas) as Schema)));
    return v;
  };

  beforeAll(async () => {
    api = await startTestApi({ projections: PROJECTIONS });
    token = (await seedUserToken(api.rt, 'openapi-admin', ['admin', 'superuser', 'auditor'])).token;
    const res = await fetch(`${api.base}/api/docs/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as typeof doc;
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([m]) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, op })),
    );
    expect(operations.length).toBeGreaterThan(50);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  it("declares on every operation the security of its route's access rule: none on public routes, an access token on every other", async () => {
    const rules = routeRules(api);
    expect([...rules.keys()].filter((k) => !operations.some((o) => o.key === k))).toEqual([]);
    const wrong: string[] = [];
    for (const { key, op, method, path } of operations) {
      const route = rules.get(key);
      if (!route?.rule) {
        wrong.push(`${key}: no route with an access rule`);
        continue;
      }
      const schemes = (op.security ?? []).map((s) => Object.keys(s).join('+')).sort();
      const expected = route.rule === 'public' ? [] : ['accessToken', 'bearer', ...(route.password ? ['basic'] : [])].sort();
      if (!Array.isArray(op.security) || JSON.stringify(schemes) !== JSON.stringify(expected)) wrong.push(`${key} (${route.rule}): security ${JSON.stringify(op.security)}`);
      if (op['x-mds-permission'] !== route.rule) wrong.push(`${key}: documents ${String(op['x-mds-permission'])}, the route needs ${route.rule}`);
      // And as the service answers: without credentials a public route serves, every other one is 401.
      const url = `${api.base}${path.replace(/\{\w+\}/g, 'x')}`;
      const res = await fetch(url, { method, ...(method === 'GET' || method === 'DELETE' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }) });
      await res.arrayBuffer();
      if ((res.status === 401) !== (route.rule !== 'public')) wrong.push(`${key} (${route.rule}): ${res.status} without credentials`);
    }
    expect(wrong).toEqual([]);
    const schemes = doc.components.securitySchemes;
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(JSON.stringify(schemes)).not.toMatch(/JWT/);
    expect(String(schemes.bearer.description)).toMatch(/mds_/);
    expect(schemes.accessToken).toMatchObject({ type: 'apiKey', in: 'query', name: 'access-token' });
    expect(operations.filter((o) => o.op.security?.some((s) => 'basic' in s)).map((o) => o.key)).toEqual(['POST /api/access-tokens']);
    expect(operations.filter((o) => o.op.security?.length === 0).map((o) => o.key).sort()).toEqual(['GET /api/audit/public-key', 'GET /health']);
  }, 120_000);

  it('takes the outlet actions as an enum, and lists the tags in the order a user meets them, legacy last', () => {
    const action = doc.paths['/api/datatargets/{datatarget_id}/outlets/{outlet_id}/{action}'].post.parameters!.find((p) => p.name === 'action')!;
    expect((action.schema as Schema).enum).toEqual(['pause', 'resume', 'retry', 'rewind']);
    const tags = doc.tags.map((t) => t.name);
    expect(tags.slice(0, 5)).toEqual(['access', 'settings', 'imports', 'retrieval', 'runs']);
    expect(tags[tags.length - 1]).toBe('legacy');
    expect(operations.filter((o) => o.op.tags?.length !== 1 || !tags.includes(o.op.tags[0])).map((o) => `${o.key} ${JSON.stringify(o.op.tags)}`)).toEqual([]);
    // The paths come in the tags' order too (generators and renderers keep the document's order).
    const order = operations.map((o) => tags.indexOf(o.op.tags![0]));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    const imports = operations.filter((o) => o.op.tags![0] === 'imports' && o.method === 'POST').map((o) => o.path);
    expect(imports).toEqual(['/api/customers/upload', '/api/customer/upload', '/api/products/upload', '/api/product/upload', '/api/events/upload', '/api/event/upload', '/api/sales/upload', '/api/sale/upload', '/api/shops/upload', '/api/data/query']);
  });

  it("gives every upload a record schema made from its datatype's field table, with the limits of LIMITS", () => {
    const uploads = operations.filter((o) => /\/(upload|import)$/.test(o.path));
    expect(uploads.length).toBeGreaterThanOrEqual(20);
    const wrong: string[] = [];
    for (const { key, op } of uploads) {
      const records = recordsOf(op.requestBody?.content['application/json']?.schema, doc.components.schemas);
      if (records.length === 0) wrong.push(`${key}: no record schema`);
      for (const [name, record] of records) {
        if (Object.keys((record.properties as Schema) ?? {}).length === 0) wrong.push(`${key}: ${name} has no properties`);
        if (typeof record.additionalProperties !== 'boolean') wrong.push(`${key}: ${name} does not say whether other keys are kept`);
      }
    }
    expect(wrong).toEqual([]);
    // One source: each table's fields, no more and no fewer, each described with an example.
    const tables: RecordTable[] = [CUSTOMER_RECORD, PRODUCT_RECORD, EVENT_RECORD, EVENT_DELETION_RECORD, SALE_RECORD, SHOP_RECORD, CAMPAIGN_RECORD, CAMPAIGN_EVENT_RECORD];
    for (const table of tables) {
      const schema = doc.components.schemas[table.name];
      expect([table.name, Object.keys(schema.properties as Schema)]).toEqual([table.name, Object.keys(table.fields)]);
      expect([table.name, schema.additionalProperties]).toEqual([table.name, table.keepsOtherKeys]);
      for (const [name, field] of Object.entries(schema.properties as Record<string, Schema>)) expect([table.name, name, typeof field.description, 'example' in field]).toEqual([table.name, name, 'string', true]);
    }
    const field = (record: string, name: string) => (doc.components.schemas[record].properties as Record<string, Schema>)[name];
    const branch = (s: Schema, type: string) => ((s.oneOf as Schema[] | undefined) ?? [s]).find((b) => b.type === type)!;
    expect(branch(field('CustomerRecord', 'external_id'), 'string')).toMatchObject({ maxLength: LIMITS.id });
    expect(field('CustomerRecord', 'first_name')).toMatchObject({ type: 'string', maxLength: LIMITS.shortText });
    expect(field('CustomerRecord', 'cb_token')).toMatchObject({ type: 'string', maxLength: LIMITS.id });
    expect(field('ProductRecord', 'description')).toMatchObject({ type: 'string', maxLength: LIMITS.text });
    expect(branch(field('ProductRecord', 'price'), 'integer')).toMatchObject({ minimum: -LIMITS.money, maximum: LIMITS.money });
    expect(branch(field('ProductRecord', 'price'), 'string')).toHaveProperty('pattern');
    expect(branch(field('CustomerRecord', 'tags'), 'array')).toMatchObject({ maxItems: LIMITS.listItems, items: { oneOf: [{ type: 'string', maxLength: LIMITS.listItem }, { type: 'number' }] } });
    expect(branch(field('CustomerRecord', 'can_email'), 'string')).toHaveProperty('pattern');
    expect(branch(field('SaleRow', 'quantity'), 'number')).toMatchObject({ minimum: -LIMITS.quantity, maximum: LIMITS.quantity });
    expect(branch(field('SaleRow', 'sale_exchange_rate'), 'number')).toMatchObject({ minimum: LIMITS.exchangeRateMin, maximum: LIMITS.exchangeRateMax });
    expect(String(field('SaleRow', 'sale_external_id').description)).toContain(LIMITS.saleRows.toLocaleString('en'));
    expect(field('CustomerRecord', 'date_joined').pattern).toBeDefined();
    expect((doc.components.schemas.CustomersUpload.properties as Record<string, Schema>).customers).toMatchObject({ type: 'array', maxItems: LIMITS.records });
    expect(doc.components.schemas.DatatargetMessages).toMatchObject({ properties: { messages: { maxItems: 10_000 } } });
  });

  it('has every example valid by its schema', () => {
    const examples: Array<[string, Schema, unknown]> = [];
    for (const [name, schema] of Object.entries(doc.components.schemas)) for (const [where, s] of withExamples(schema, name)) examples.push([where, s, s.example]);
    for (const { key, op } of operations) {
      for (const p of op.parameters ?? []) {
        for (const [where, s] of withExamples(p.schema, `${key} ${String(p.name)}`)) examples.push([where, s, s.example]);
        if ('example' in p) examples.push([`${key} ${String(p.name)}`, p.schema as Schema, p.example]);
      }
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        for (const [where, s] of withExamples(media.schema, `${key} body`)) examples.push([where, s, s.example]);
        if ('example' in media) examples.push([`${key} ${type} example`, media.schema, media.example]);
        for (const [name, ex] of Object.entries(media.examples ?? {})) examples.push([`${key} ${type} examples.${name}`, media.schema, ex.value]);
      }
    }
    const invalid = examples.flatMap(([where, schema, example]) => {
      const v = validate(schema);
      return v(example) ? [] : [`${where}: ${JSON.stringify(example).slice(0, 120)}: ${ajv.errorsText(v.errors)}`];
    });
    expect(invalid).toEqual([]);
    expect(examples.length).toBeGreaterThan(150);
  });

  it('has every upload example accepted by the API as sent: 200, no record errors', async () => {
    const rank = (path: string) => UPLOAD_ORDER.findIndex((r) => r.test(`${path}/`));
    const uploads = operations.filter((o) => /\/upload$/.test(o.path)).sort((a, b) => rank(a.path) - rank(b.path));
    expect(uploads.map((u) => rank(u.path)).filter((r) => r < 0)).toEqual([]);
    const answers: string[] = [];
    let sent = 0;
    for (const { key, method, path, op } of uploads) {
      const examples = Object.entries(op.requestBody!.content['application/json'].examples ?? {});
      if (examples.length === 0) answers.push(`${key}: no example`);
      for (const [name, { value }] of examples) {
        const res = await api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(value) });
        sent++;
        const records = Array.isArray(value) ? value : Object.values(value as Schema)[0];
        if (res.status !== 200 || res.body.rejected !== 0 || res.body.errors.length > 0 || res.body.accepted !== (records as unknown[]).length || res.body.warnings?.length) {
          answers.push(`${key} ${name}: ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`);
        }
        // The next upload may name what this one sent (an event its sale): as a client would, wait
        // until this run is completed, so its records are readable (a busy machine makes it later).
        if (res.status === 200 && res.body.run_url) {
          const run = await api.call(res.body.run_url, { headers: { authorization: `Bearer ${token}` } });
          if (run.body.state !== 'completed') answers.push(`${key} ${name}: run ${JSON.stringify(run.body).slice(0, 200)}`);
        }
      }
    }
    expect(answers).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(20);
  }, 120_000);
});
