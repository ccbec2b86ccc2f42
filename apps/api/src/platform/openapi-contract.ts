import type { OpenAPIObject } from '@nestjs/swagger';
import { INTEGRATION_PERMISSIONS, ROLE_PERMISSIONS, type Permission } from '#mds/access';
import { ACCESS_RULE_EXTENSION, PASSWORD_LOGIN_EXTENSION, type AccessRule } from '../access/permissions';
import { recordComponents } from './openapi-records';

/**
 * The answers of every route as JSON schemas in the OpenAPI document, kept in one place beside the
 * routes' own decorators: the error envelope for every 4xx and 5xx, and each route's 2xx shape (the
 * keys a client may rely on; more may come). The fuzz test (test/e2e/fuzz.e2e-spec.ts) holds every
 * answer of every route to them, so the document cannot drift from the service unnoticed. Also fills
 * in the path and query parameters the decorators do not declare, each route's security from the
 * access rule it declares (RequirePermission), the import records (openapi-records.ts), and the tags
 * in the order a user meets them; test/e2e/openapi.e2e-spec.ts holds the document to the routes.
 */
type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const bool: Schema = { type: 'boolean' };
const nullable = (s: Schema): Schema => ({ ...s, nullable: true });
const arr = (items: Schema = {}): Schema => ({ type: 'array', items });
const obj = (properties: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema => ({
  type: 'object',
  required: Object.keys(properties),
  properties: { ...properties, ...optional },
});
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const SCHEMAS: Record<string, Schema> = {
  Error: obj({ error: obj({ code: str, message: str }) }),
  RecordError: obj({ index: int, field: nullable(str), code: str, message: str }),
  ImportAnswer: obj({ response: { type: 'string', enum: ['ok'] }, run_id: str, run_url: str, accepted: int, rejected: int, errors: arr(ref('RecordError')) }, { warnings: arr(ref('RecordError')) }),
  ImportDryRunAnswer: obj({ response: { type: 'string', enum: ['ok'] }, dry_run: { type: 'boolean', enum: [true] }, accepted: int, rejected: int, errors: arr(ref('RecordError')) }, { warnings: arr(ref('RecordError')) }),
  Run: obj({ run_id: str, kind: str, state: { type: 'string', enum: ['scheduled', 'completed', 'failed'] }, received: int, accepted: int, rejected: int, errors: arr(ref('RecordError')), warnings: arr(ref('RecordError')), created_at: str, completed_at: nullable(str) }, { log_position: nullable(int) }),
  Datatarget: obj({ id: str, datatarget_type: { type: 'string', enum: ['messages', 'datasync'] }, name: str, created_at: str, enabled: bool, outlets: arr(), last_message_number: int }, { retention_days: nullable(int), datatype: str, description: str }),
  Outlet: obj({ id: str, outlet_type: str, enabled: bool, request: { type: 'object' }, is_batched: bool, max_batch_size: int, last_delivered_message_number: int, delivered_batch_count: int, signed: bool, created_at: str }, { paused_reason: nullable(str), failing_since: nullable(str), next_attempt_at: nullable(str) }),
  Integration: obj({ id: str, name: str, enabled: bool, created_at: str }, { tokens: arr() }),
  Campaign: obj({ campaign_key: str, stats: nullable(obj({ performance: ref('CampaignPerformance') })) }),
  CampaignPerformance: obj({ audience_reached: int, unique_opens: int, total_opens: int, unique_clicks: int, total_clicks: int, audience_converted: int,
    open_rate: nullable({ type: 'number' }), click_rate: nullable({ type: 'number' }), conversion_rate: nullable({ type: 'number' }), revenue_per_recipient: nullable({ type: 'number' }) }),
  CampaignDay: obj({ date: str, sent: int, delivered: int, opens: int, clicks: int, unsubscribes: int, spam_reports: int, bounces: int,
    unique_opens: int, unique_clicks: int, total_sales: int, total_revenue: int, sales_for_conversion: int }),
  Deleted: obj({ deleted: bool, id: str }),
};

const list = (key: string, item: Schema = { type: 'object' }, counted = true): Schema =>
  obj({ [key]: arr(item), ...(counted ? { count: int } : {}), next_url: nullable(str) });

/** 2xx answers by `METHOD path` (the document's templates); uploads are matched by their suffix. */
const ANSWERS: Record<string, Schema> = {
  'GET /health': obj({ status: { type: 'string', enum: ['ok', 'failing'] }, database: obj({ status: str }), event_log: obj({ status: str }) }),
  'POST /api/access-tokens': obj({ access_token: obj({ id: str, token: str, hint: str, owner_id: str, created_at: str }) }),
  'GET /api/access-tokens': list('access_tokens', obj({ id: str, hint: str, owner_id: str }), false),
  'GET /api/access-tokens/{token_id}': obj({ access_token: obj({ id: str, hint: str }) }),
  'DELETE /api/access-tokens/{token_id}': { type: 'object' },
  'POST /api/integrations': obj({ integration: ref('Integration') }),
  'GET /api/integrations': list('integrations', ref('Integration'), false),
  'GET /api/integrations/{integration_id}': obj({ integration: ref('Integration') }),
  'PATCH /api/integrations/{integration_id}': obj({ integration: ref('Integration') }),
  'POST /api/datasources': obj({ datasource: obj({ id: str }) }),
  'GET /api/datasources': list('datasources', obj({ id: str }), false),
  'GET /api/datasources/{datasource_id}': obj({ datasource: obj({ id: str }) }),
  'GET /api/settings': obj({ settings: obj({ timezone: str, default_currency: str }) }),
  'PATCH /api/settings': obj({ settings: obj({ timezone: str, default_currency: str }) }),
  'GET /api/runs/{run_id}': ref('Run'),
  'POST /api/data/query': obj({ run_id: str, matched: int }),
  'GET /api/data/shops': list('shops'),
  'GET /api/data/customers': list('customers'),
  'GET /api/data/customers/{external_id}/history': list('changes', obj({ position: int, at: str, type: str })),
  'GET /api/data/customers/{external_id}/consent': list('consent', obj({ position: int, at: str, run_id: nullable(str), type: str, consent_source: nullable(str), fields: { type: 'object' } })),
  'GET /api/data/customers/{external_id}/export': obj({ customer_id: int, external_id: str, exported_at: str, customer: obj({ record: { type: 'object' }, changes: arr() }), consent: arr(), events: arr(), sales: arr(), campaign_events: arr(), messages: arr(), count: int }),
  'GET /api/data/products': list('products'),
  'GET /api/data/events': list('events'),
  'GET /api/data/sales': list('sales'),
  'GET /api/data/customers/{external_id}': obj({ id: int, updated_at: str }),
  'GET /api/data/products/{external_id}': obj({ id: str, external_id: str, updated_at: str }),
  'GET /api/data/sales/{sale_external_id}': obj({ id: str, sale_external_id: str, updated_at: str }),
  'GET /api/data/shops/{external_id}': obj({ id: str, external_id: str, updated_at: str }),
  'GET /api/data/events/{id}': obj({ id: int, type: str, updated_at: str }),
  'GET /api/campaign/actions': list('campaigns', ref('Campaign')),
  'GET /api/campaigns/statistics': list('campaigns', ref('Campaign')),
  'GET /api/campaign/actions/{campaign_key}/daily': obj({ campaign_key: str, timezone: str, days: arr(ref('CampaignDay')), count: int, next: nullable(str), next_url: nullable(str) }),
  'GET /api/campaigns/statistics/{campaign_key}/daily': obj({ campaign_key: str, timezone: str, days: arr(ref('CampaignDay')), count: int, next: nullable(str), next_url: nullable(str) }),
  'GET /api/datatargets': list('datatargets', ref('Datatarget'), false),
  'POST /api/datatargets': obj({ datatarget: ref('Datatarget') }),
  'GET /api/datatargets/{datatarget_id}': obj({ datatarget: ref('Datatarget') }),
  'PATCH /api/datatargets/{datatarget_id}': obj({ datatarget: ref('Datatarget') }),
  'DELETE /api/datatargets/{datatarget_id}': ref('Deleted'),
  'POST /api/datatargets/{datatarget_id}/post': obj({ first_message_number: int, messages_count: int }),
  'GET /api/datatargets/{datatarget_id}/retrieve': obj({ messages: arr() }, { last_message_number: int }),
  'POST /api/datatargets/{datatarget_id}/outlets': obj({ outlet: ref('Outlet') }),
  'GET /api/datatargets/{datatarget_id}/outlets': list('outlets', ref('Outlet'), false),
  'GET /api/datatargets/{datatarget_id}/outlets/{outlet_id}': obj({ outlet: ref('Outlet') }),
  'PATCH /api/datatargets/{datatarget_id}/outlets/{outlet_id}': obj({ outlet: ref('Outlet') }),
  'DELETE /api/datatargets/{datatarget_id}/outlets/{outlet_id}': ref('Deleted'),
  'POST /api/datatargets/{datatarget_id}/outlets/{outlet_id}/{action}': obj({ outlet: ref('Outlet') }),
  'POST /api/datatargets/{datatarget_id}/outlets/{outlet_id}/test': obj({ entry: obj({ entry_number: int, status: { type: 'string', enum: ['OK', 'FAIL'] }, request_time_ms: int, test: bool }) }),
  'GET /api/datatargets/{datatarget_id}/outlets/{outlet_id}/log': obj({ order: str, limit: int, total_count: int, next_url: nullable(str), entries: arr(obj({ entry_number: int, status: str })) }),
  'GET /api/datatargets/{datatarget_id}/outlets/{outlet_id}/log/{entry_number}': obj({ entry: obj({ entry_number: int, status: str }) }),
  'GET /api/audit/events': list('events', obj({ position: int, stream: str, type: str, revision: int, created_at: str })),
  'GET /api/audit/public-key': obj({ algorithm: { type: 'string', enum: ['Ed25519'] }, key_id: str, public_key: str }),
};

/** Answers streamed as NDJSON (`application/x-ndjson`) by `METHOD path`: the schema of each line. */
const LINES: Record<string, Schema> = {
  // A forgotten customer's line is `{"is_forgotten": true}`, as its list shows it.
  'GET /api/export/{datatype}': { anyOf: [obj({ id: { anyOf: [int, str] }, updated_at: str }), obj({ is_forgotten: { type: 'boolean', enum: [true] } })] },
};

/** Answers that are JSON, or NDJSON when the request's Accept asks for `application/x-ndjson`: the schema of each line. */
const JSON_OR_LINES: Record<string, Schema> = {
  'GET /api/data/customers/{external_id}/export': obj({ section: { type: 'string', enum: ['export', 'customer', 'consent', 'events', 'sales', 'campaign_events', 'messages', 'end'] } }),
};

const q = (name: string, schema: Schema, description: string) => ({ in: 'query', name, required: false, schema, description });
const RETRIEVAL = [q('limit', int, 'Records per page'), q('after', str, 'The cursor of next_url')];
/** Query parameters the routes read through their own parsing, not a DTO the document sees. */
const QUERIES: Record<string, unknown[]> = {
  'GET /api/data/customers': [...RETRIEVAL, q('external_id', str, 'One customer'), q('email', str, 'By e-mail'), q('updated_since', str, 'ISO 8601')],
  'GET /api/data/products': [...RETRIEVAL, q('external_id', str, 'One product'), q('include_deleted', bool, 'true: rows imported with is_deleted: true too')],
  'GET /api/data/events': [...RETRIEVAL, q('type', str, 'Event type')],
  'GET /api/data/sales': [...RETRIEVAL, q('sale_external_id', str, 'One transaction')],
  'GET /api/data/shops': [...RETRIEVAL, q('include_deleted', bool, 'true: shops imported with is_deleted: true too')],
  'GET /api/data/customers/{external_id}/history': [q('as_of', str, 'ISO 8601'), q('limit', int, 'Changes per page (100, at most 1,000)'), q('from', int, 'How many changes to skip, as next_url gives it')],
  'GET /api/data/customers/{external_id}/consent': [q('limit', int, 'Consent changes per page (100, at most 1,000)'), q('from', int, 'How many consent changes to skip, as next_url gives it')],
  'GET /api/audit/events': ['from', 'limit', 'type', 'stream', 'stream_prefix', 'since', 'until', 'actor'].map((n) => q(n, n === 'from' || n === 'limit' ? int : str, `Filter: ${n}`)),
  'GET /api/datatargets/{datatarget_id}/outlets/{outlet_id}/log': [q('limit', int, 'Entries per page'), q('from', int, 'An entry number'), q('order', { type: 'string', enum: ['ascending', 'descending'] }, 'Order')],
};

/** The tags in the order a user meets them: a token, the settings imports read, imports, reading back, runs … legacy last. */
const TAGS = [
  { name: 'access', description: 'Access tokens (`mds_…`) and integrations: get a token first' },
  { name: 'settings', description: 'Time zone, default country and currency: what imports read dates and phone numbers by' },
  { name: 'imports', description: 'Uploads of customers, products, events, sales and shops (each a run), and bulk updates' },
  { name: 'retrieval', description: 'What was imported, read back: customers, products, events, sales, shops' },
  { name: 'runs', description: 'Whether an import run is readable yet' },
  { name: 'campaigns', description: 'Campaigns and their events in; campaign statistics out' },
  { name: 'datatargets', description: 'Messages for external systems: retrieval and webhook outlets' },
  { name: 'audit', description: 'The event log, signed' },
  { name: 'operations', description: 'Health and metrics' },
  { name: 'legacy', description: 'Paths kept for plugins of 2020–2023 (datasources); new clients use the uploads' },
];
/** Inside these tags, datatypes in the order they are best imported (products before the events and sales naming them). */
const BY_DATATYPE = ['imports', 'retrieval'];
const DATATYPES = ['customer', 'product', 'event', 'sale', 'shop', 'data/query'];

const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'mds_ access token',
    description:
      'An access token: `mds_` + 32 base62 characters + a 6-character checksum, from POST /api/access-tokens/. Sent as `Authorization: Bearer <token>` ' +
      '(`Token <token>` and basic authentication with username `access-token` and the token as password work too).',
  },
  accessToken: {
    type: 'apiKey',
    in: 'query',
    name: 'access-token',
    description: 'The access token as a query parameter, for clients that cannot set headers (it may end up in logs on the way; answers carry `Cache-Control: private, no-store`).',
  },
  basic: {
    type: 'http',
    scheme: 'basic',
    description: 'Username and password: only POST /api/access-tokens/, to create a token (with `Service-TOTP-Code` when the user has two-factor authentication).',
  },
};

/** Who holds a permission, for the operation's description (libs/access roles.ts). */
function holders(rule: AccessRule): string {
  if (rule === 'authenticated') return 'Any valid access token.';
  const roles = Object.entries(ROLE_PERMISSIONS).filter(([, granted]) => granted.includes(rule as Permission)).map(([role]) => role);
  const integrations = INTEGRATION_PERMISSIONS.includes(rule as Permission) ? ', integration tokens' : '';
  return `Needs \`${rule}\`: ${roles.join(', ')}${integrations}.`;
}

/** The operation's security from the access rule its route declares: none for public routes, a token for every other. */
function secure(op: Record<string, unknown>): void {
  const rule = op[ACCESS_RULE_EXTENSION] as AccessRule | undefined;
  if (rule === 'public') {
    op.security = [];
    return;
  }
  op.security = [{ bearer: [] }, { accessToken: [] }, ...(op[PASSWORD_LOGIN_EXTENSION] ? [{ basic: [] }] : [])];
  if (rule) op.description = [op.description, holders(rule)].filter(Boolean).join(' ');
}

export function completeContract(document: OpenAPIObject): OpenAPIObject {
  const components = (document.components ??= {});
  components.schemas = { ...components.schemas, ...SCHEMAS, ...recordComponents() } as never;
  components.securitySchemes = SECURITY_SCHEMES as never;
  document.tags = TAGS;
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item as Record<string, Record<string, unknown>>)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const key = `${method.toUpperCase()} ${path}`;
      secure(op);
      // `Customers_upload` rather than `CustomersHttpController_upload[0]`: names a generator can use.
      if (typeof op.operationId === 'string') op.operationId = op.operationId.replace(/HttpController_/, '_').replace(/\[(\d+)\]$/, (_, i: string) => (i === '0' ? '' : `_${i}`));
      const parameters = ((op.parameters as Array<{ in: string; name: string }>) ??= []);
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        if (!parameters.some((p) => p.in === 'path' && p.name === name)) parameters.push({ in: 'path', name, required: true, schema: str, description: name } as never);
      }
      for (const extra of (QUERIES[key] ?? []) as Array<{ name: string; in: string }>) {
        if (!parameters.some((p) => p.in === 'query' && p.name === extra.name)) parameters.push(extra);
      }
      const responses = ((op.responses as Record<string, Record<string, unknown>>) ??= {});
      const answer = /\/(upload|import)$/.test(path) ? { oneOf: [ref('ImportAnswer'), ref('ImportDryRunAnswer')] } : ANSWERS[key];
      const ok = Object.keys(responses).find((code) => code.startsWith('2')) ?? '200';
      if (LINES[key]) responses[ok] = { description: (responses[ok]?.description as string) ?? 'OK', content: { 'application/x-ndjson': { schema: LINES[key] } } };
      else if (answer && path !== '/metrics') responses[ok] = { description: (responses[ok]?.description as string) ?? 'OK', content: { 'application/json': { schema: answer } } };
      if (JSON_OR_LINES[key]) (responses[ok].content as Record<string, unknown>)['application/x-ndjson'] = { schema: JSON_OR_LINES[key] };
      const error = { content: { 'application/json': { schema: ref('Error') } } };
      responses['4XX'] = { description: 'A client error: `{error: {code, message}}`', ...error };
      responses['5XX'] = { description: 'A server error (503: the database or the event log is unavailable)', ...error };
      // Health answers 503 in its own shape, saying which part fails.
      if (path === '/health') responses['503'] = { description: 'A dependency fails', content: { 'application/json': { schema: answer } } };
    }
  }
  document.paths = Object.fromEntries(sortPaths(document.paths));
  return document;
}

/** Paths by their first operation's tag (in TAGS order), then by datatype, else as the routes were declared. */
function sortPaths(paths: OpenAPIObject['paths']) {
  const tagOf = (item: object) => {
    const tags = Object.values(item as Record<string, { tags?: string[] }>).find((op) => op?.tags?.length)?.tags ?? [];
    const at = TAGS.findIndex((t) => t.name === tags[0]);
    return at < 0 ? TAGS.length : at;
  };
  const datatypeOf = (path: string, tag: number) => {
    const at = BY_DATATYPE.includes(TAGS[tag]?.name) ? DATATYPES.findIndex((d) => path.includes(`/${d}`)) : -1;
    return at < 0 ? DATATYPES.length : at;
  };
  return Object.entries(paths)
    .map((entry, declared) => {
      const tag = tagOf(entry[1]);
      return { entry, key: [tag, datatypeOf(entry[0], tag), declared] };
    })
    .sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.key[2] - b.key[2])
    .map(({ entry }) => entry);
}
