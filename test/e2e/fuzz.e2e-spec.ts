import Ajv from 'ajv';
import fc from 'fast-check';
import { PROJECTIONS } from '#mds/projections';
import { IMPORTS } from '../fixtures/hostile/corpus';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';

// Requests generated from the OpenAPI document, for every route: whatever is sent, no answer is a 5xx,
// and every answer has the shape the document gives for its status (2xx per route, the error envelope
// for 4xx). Every route but the public ones refuses missing and foreign credentials. A bounded run
// here (FUZZ_RUNS requests per route, 12 by default); `npm run fuzz` runs long.
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);

type Schema = Record<string, unknown>;
interface Operation {
  method: string;
  path: string;
  parameters: Array<{ in: string; name: string; schema?: Schema }>;
  body: boolean;
  /** The document declares no security: anyone may call it. */
  public: boolean;
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

/** OpenAPI 3.0 schema → JSON schema Ajv checks: `nullable`, and the components inlined. */
function jsonSchema(s: unknown, components: Record<string, Schema>): unknown {
  if (Array.isArray(s)) return s.map((x) => jsonSchema(x, components));
  if (!s || typeof s !== 'object') return s;
  const o = s as Schema;
  if (typeof o.$ref === 'string') return jsonSchema(components[o.$ref.split('/').pop()!], components);
  const out: Schema = {};
  for (const [k, v] of Object.entries(o)) if (k !== 'nullable' && k !== 'example' && k !== 'description') out[k] = jsonSchema(v, components);
  return o.nullable ? { anyOf: [out, { type: 'null' }] } : out;
}

describe('requests generated from the OpenAPI document', () => {
  let api: TestApi;
  let token: string;
  let operations: Operation[];
  let components: Record<string, Schema>;
  const ids: Record<string, string> = {};
  const ajv = new Ajv({ allErrors: false, strict: false });

  beforeAll(async () => {
    api = await startTestApi({ projections: PROJECTIONS });
    token = (await seedUserToken(api.rt, 'fuzz-admin', ['admin', 'superuser', 'auditor'])).token;
    const send = async (path: string, body: unknown) =>
      (await fetch(`${api.base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<Record<string, { id: string }>>;
    ids.datatarget_id = (await send('/api/datatargets/', { datatarget_type: 'messages', name: 'fuzzed' })).datatarget.id;
    ids.outlet_id = (await send(`/api/datatargets/${ids.datatarget_id}/outlets/`, { outlet_type: 'webhook', request: { url: 'https://example.invalid/h', method: 'POST', format: 'json', content: '{(data)}', is_batched: true } })).outlet.id;
    ids.integration_id = (await send('/api/integrations/', { integration_name: 'shop', parameters: { name: 'shop', description: 'x' } })).integration.id;
    ids.run_id = (await send('/api/customers/upload/', { customers: [{ external_id: 'F1' }] })).run_id as unknown as string;
    ids.external_id = 'F1';
    const doc = (await (await fetch(`${api.base}/api/docs/openapi.json`)).json()) as { paths: Record<string, Record<string, Schema>>; components: { schemas: Record<string, Schema> } };
    components = doc.components.schemas;
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([m]) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map(([method, op]) => ({ method: method.toUpperCase(), path, parameters: (op.parameters as Operation['parameters']) ?? [], body: Boolean(op.requestBody), public: Array.isArray(op.security) && op.security.length === 0, responses: op.responses as Operation['responses'] })),
    );
    expect(operations.length).toBeGreaterThan(50);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  /** The schema the document gives for an answer's status: its own code, else its range. */
  const documented = (op: Operation, status: number) => {
    const r = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`];
    return r?.content?.['application/json']?.schema;
  };

  /** Bodies a route takes, so that its 2xx answers are generated too, beside random JSON. */
  const valid = (op: Operation): unknown[] => {
    const upload = IMPORTS.find((i) => `${op.path}/`.replace(/\/(customer|product|event|sale)\//, '/$1s/') === i.path);
    if (upload) return [{ [upload.key]: [upload.base] }, { [upload.key]: [] }, {}];
    const bodies: Record<string, unknown[]> = {
      'POST /api/datatargets': [{ datatarget_type: 'messages', name: 'generated' }, { datatarget_type: 'datasync', datatype: 'customers', name: 'sync' }],
      'PATCH /api/datatargets/{datatarget_id}': [{ name: 'renamed' }, { retention_days: 7 }],
      'POST /api/datatargets/{datatarget_id}/post': [{ messages: [{ a: 1 }, { b: [2] }] }],
      'POST /api/datatargets/{datatarget_id}/outlets/{outlet_id}/{action}': [{}, { to_message_number: 1 }],
      'PATCH /api/datatargets/{datatarget_id}/outlets/{outlet_id}': [{ max_batch_size: 5 }, { enabled: false }],
      'POST /api/data/query': [{ datatype: 'customers', match: { external_id: 'F1' }, update: { city: 'Espoo' } }],
      'POST /api/integrations': [{ integration_name: 'generated', parameters: { name: 'g', description: 'd' } }],
      'PATCH /api/settings': [{ timezone: 'Europe/Helsinki' }, { default_currency: 'EUR' }],
      'POST /api/access-tokens': [{ name: 'generated' }, { name: 'expiring', expires_in: 3600 }],
    };
    return bodies[`${op.method} ${op.path}`] ?? [];
  };

  const valueOf = (schema: Schema | undefined): fc.Arbitrary<string> => {
    const junk = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('', '-1', '0', '1e9', 'null', '%', '..', 'ä', '😀', ' '));
    if (schema?.type === 'integer' || schema?.type === 'number') return fc.oneof(fc.integer({ min: -5, max: 20_000 }).map(String), junk);
    if (Array.isArray(schema?.enum)) return fc.oneof(fc.constantFrom(...(schema!.enum as string[])), junk);
    return junk;
  };

  const request = (op: Operation) => {
    const path = fc.record(
      Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, fc.oneof({ weight: 3, arbitrary: fc.constant(ids[p.name] ?? 'x') }, { weight: 1, arbitrary: valueOf(p.schema).filter((v) => v.trim() !== '') })])),
    );
    const query = fc.record(Object.fromEntries(op.parameters.filter((p) => p.in === 'query').map((p) => [p.name, fc.option(valueOf(p.schema), { nil: undefined })])), { requiredKeys: [] });
    const examples = valid(op);
    const random = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }));
    const body = op.body || op.method !== 'GET' ? fc.option(examples.length > 0 ? fc.oneof(random, fc.constantFrom(...examples)) : random, { nil: undefined }) : fc.constant(undefined);
    return fc.record({ path, query, body });
  };

  const urlOf = (op: Operation, r: { path: Record<string, string>; query: Record<string, string | undefined> }) => {
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(r.path[name] ?? 'x'));
    const query = new URLSearchParams(Object.entries(r.query).filter(([, v]) => v !== undefined) as Array<[string, string]>).toString();
    return `${api.base}${path}${query ? `?${query}` : ''}`;
  };

  it('answers no generated request with a 5xx, and every answer as the document says', async () => {
    const problems: string[] = [];
    let sent = 0;
    for (const op of operations) {
      if (op.path === '/api/docs/openapi.json' || op.path.startsWith('/api/docs')) continue;
      await fc.assert(
        fc.asyncProperty(request(op), async (r) => {
          sent++;
          const res = await fetch(urlOf(op, r), {
            method: op.method,
            headers: { authorization: `Bearer ${token}`, ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}) },
            body: r.body === undefined ? undefined : JSON.stringify(r.body),
          });
          const text = await res.text();
          const where = `${op.method} ${op.path} ${JSON.stringify(r).slice(0, 200)} → ${res.status}`;
          if (res.status >= 500 && op.path !== '/health') problems.push(`${where}: ${text.slice(0, 200)}`);
          if (op.path === '/metrics' && res.status === 200) return;
          // An NDJSON answer (exports): each line as the document gives a line.
          const ndjson = res.headers.get('content-type')?.startsWith('application/x-ndjson') ?? false;
          const lines = ndjson ? op.responses[String(res.status)]?.content?.['application/x-ndjson']?.schema : undefined;
          if (lines && res.status < 300) {
            const validateLine = ajv.compile(jsonSchema(lines, components) as Schema);
            for (const line of text.split('\n').filter((l) => l !== '')) {
              let parsed: unknown;
              try {
                parsed = JSON.parse(line);
              } catch {
                problems.push(`${where}: a line is not JSON: ${line.slice(0, 100)}`);
                return;
              }
              if (!validateLine(parsed)) problems.push(`${where}: ${ajv.errorsText(validateLine.errors)} in ${line.slice(0, 200)}`);
            }
            return;
          }
          const schema = documented(op, res.status);
          if (!schema) {
            problems.push(`${where}: no schema documented`);
            return;
          }
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            problems.push(`${where}: not JSON: ${text.slice(0, 100)}`);
            return;
          }
          const validate = ajv.compile(jsonSchema(schema, components) as Schema);
          if (!validate(body)) problems.push(`${where}: ${ajv.errorsText(validate.errors)} in ${text.slice(0, 200)}`);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    }
    expect([...new Set(problems)].slice(0, 30)).toEqual([]);
    console.log(`fuzz: ${sent} generated requests on ${operations.length} operations (seed ${SEED}), no 5xx, every answer as documented`);
  }, 600_000);

  it('refuses missing and foreign credentials on every route but the public ones', async () => {
    const foreign = `mds_${'A'.repeat(32)}abcdef`;
    const wrong: string[] = [];
    for (const op of operations) {
      if (op.public || op.path.startsWith('/api/docs')) continue;
      const url = urlOf(op, { path: ids, query: {} });
      for (const [who, headers] of [['none', {}], ['foreign', { authorization: `Bearer ${foreign}` }], ['basic', { authorization: `Basic ${Buffer.from('fuzz-admin:wrong password').toString('base64')}` }]] as const) {
        const res = await fetch(url, { method: op.method, headers: { ...headers, ...(op.method === 'GET' ? {} : { 'content-type': 'application/json' }) }, body: op.method === 'GET' || op.method === 'DELETE' ? undefined : '{}' });
        const body = (await res.json().catch(() => undefined)) as { error?: { code: string } } | undefined;
        if (res.status !== 401 || body?.error?.code !== 'unauthorized') wrong.push(`${op.method} ${op.path} with ${who} credentials: ${res.status} ${JSON.stringify(body).slice(0, 100)}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  it("refuses another user's token scoped to one path on every other route (403), and a revoked token everywhere (401)", async () => {
    const scoped = await seedUserToken(api.rt, 'fuzz-scoped', ['admin'], { scopes: [{ method: 'GET', path: '/api/data/products/' }] });
    const revoked = await seedUserToken(api.rt, 'fuzz-revoked', ['admin']);
    expect((await fetch(`${api.base}/api/access-tokens/${revoked.tokenId}/`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await fetch(`${api.base}/api/data/products/`, { headers: { authorization: `Bearer ${scoped.token}` } })).status).toBe(200);
    const wrong: string[] = [];
    let checked = 0;
    for (const op of operations) {
      if (op.public || op.path.startsWith('/api/docs') || op.path.replace(/\/$/, '') === '/api/data/products') continue;
      const url = urlOf(op, { path: ids, query: {} });
      for (const [who, bearerToken, status, code] of [['scoped', scoped.token, 403, 'forbidden'], ['revoked', revoked.token, 401, 'unauthorized']] as const) {
        const res = await fetch(url, { method: op.method, headers: { authorization: `Bearer ${bearerToken}`, ...(op.method === 'GET' ? {} : { 'content-type': 'application/json' }) }, body: op.method === 'GET' || op.method === 'DELETE' ? undefined : '{}' });
        const body = (await res.json().catch(() => undefined)) as { error?: { code: string } } | undefined;
        checked++;
        if (res.status !== status || body?.error?.code !== code) wrong.push(`${op.method} ${op.path} with the ${who} token: ${res.status} ${JSON.stringify(body).slice(0, 100)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  }, 120_000);
});
