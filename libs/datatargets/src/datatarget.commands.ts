import { randomUUID } from 'node:crypto';
import { appendDecided, type EventStore, type RecordedEvent } from '../../event-store/src';
import { chunkRecords } from '../../imports/src';
import { conflict, invalidRequest, notFound, type SecretBox } from '../../platform/src';
import {
  DATASYNC_DATATYPES,
  DATATARGET_CHANGED,
  DATATARGET_CREATED,
  DATATARGET_DELETED,
  datatargetStream,
  INITIAL_OUTLET_STATE,
  MESSAGES_POSTED,
  OUTLET_CHANGED,
  OUTLET_CONTROLLED,
  OUTLET_CREATED,
  OUTLET_DELETED,
  outletStream,
  type DatatargetChanged,
  type DatatargetCreated,
  type DeliveryAttempted,
  type MessagesPosted,
  type OutletChanged,
  type OutletControlled,
  type OutletCreated,
  type OutletDefinition,
  type OutletState,
} from './datatarget.events';

export const MAX_MESSAGES_PER_POST = 10_000;

interface Meta {
  actor: string;
  requestId?: string;
}

const metadata = (m: Meta) => ({ actor: m.actor, request_id: m.requestId });

/** The datatarget's last event: where numbering stands; 404 when there is none or it was deleted. */
function liveHead(last: RecordedEvent | undefined, id: string): { lastMessageNumber: number } {
  if (!last || last.type === DATATARGET_DELETED) throw notFound(`No datatarget ${id.slice(0, 64)}`);
  return { lastMessageNumber: (last.data as { last_message_number: number }).last_message_number };
}

function text(body: Record<string, unknown>, key: string, max: number, required: boolean): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) {
    if (required) throw invalidRequest(`${key} is required`);
    return undefined;
  }
  if (typeof v !== 'string' || (required && v.trim() === '') || v.length > max) throw invalidRequest(`${key} must be a${required ? ' non-empty' : ''} string of at most ${max} characters`);
  return v.trim();
}

function objectBody(body: unknown, shape: string): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest(`The body must be a JSON object ${shape}`);
  return body as Record<string, unknown>;
}

function onlyKeys(body: Record<string, unknown>, allowed: string[]) {
  const extra = Object.keys(body).find((k) => !allowed.includes(k));
  if (extra !== undefined) throw invalidRequest(`Unknown key "${extra.slice(0, 50)}"; allowed: ${allowed.join(', ')}`);
}

export async function createDatatarget(store: EventStore, raw: unknown, meta: Meta): Promise<{ datatarget_id: string; position: number }> {
  const body = objectBody(raw, '{datatarget_type, name, description?, datatype?}');
  onlyKeys(body, ['datatarget_type', 'name', 'description', 'datatype']);
  const type = body.datatarget_type;
  if (type !== 'messages' && type !== 'datasync') throw invalidRequest('datatarget_type must be "messages" or "datasync"');
  const name = text(body, 'name', 200, true)!;
  const description = text(body, 'description', 2000, false) ?? '';
  let datatype: string | null = null;
  if (type === 'datasync') {
    if (typeof body.datatype !== 'string' || !(DATASYNC_DATATYPES as readonly string[]).includes(body.datatype)) {
      throw invalidRequest(`a datasync datatarget needs datatype: one of ${DATASYNC_DATATYPES.join(', ')}`);
    }
    datatype = body.datatype;
  } else if (body.datatype !== undefined) throw invalidRequest('datatype is only for datasync datatargets');
  const id = randomUUID();
  const data: DatatargetCreated = { datatarget_id: id, datatarget_type: type, datatype, name, description, created_at: new Date().toISOString(), last_message_number: 0 };
  const result = await store.append(datatargetStream(id), [{ type: DATATARGET_CREATED, data, metadata: metadata(meta) }], { expectedRevision: 'no_stream' });
  return { datatarget_id: id, position: result.position };
}

export async function changeDatatarget(store: EventStore, id: string, raw: unknown, meta: Meta): Promise<number> {
  const body = objectBody(raw, '{name?, description?, enabled?}');
  onlyKeys(body, ['name', 'description', 'enabled']);
  const changes: DatatargetChanged['changes'] = {};
  if (body.name !== undefined) changes.name = text(body, 'name', 200, true);
  if (body.description !== undefined) changes.description = text(body, 'description', 2000, false) ?? '';
  if (body.enabled !== undefined) {
    if (typeof body.enabled !== 'boolean') throw invalidRequest('enabled must be true or false');
    changes.enabled = body.enabled;
  }
  if (Object.keys(changes).length === 0) throw invalidRequest('Nothing to change: send name, description or enabled');
  const { position } = await appendDecided(store, datatargetStream(id), (last) => {
    const { lastMessageNumber } = liveHead(last, id);
    return [{ type: DATATARGET_CHANGED, data: { changes, last_message_number: lastMessageNumber } satisfies DatatargetChanged, metadata: metadata(meta) }];
  });
  return position;
}

export async function deleteDatatarget(store: EventStore, id: string, meta: Meta): Promise<number> {
  const { position } = await appendDecided(store, datatargetStream(id), (last) => {
    const { lastMessageNumber } = liveHead(last, id);
    return [{ type: DATATARGET_DELETED, data: { last_message_number: lastMessageNumber }, metadata: metadata(meta) }];
  });
  return position;
}

/**
 * Posts messages: numbers are assigned here, gap-free from 1, by appending at the stream's last
 * revision (another post in between makes the append fail and the numbers are taken again).
 */
export async function postMessages(store: EventStore, id: string, raw: unknown, meta: Meta & { datatargetType: string }): Promise<{ first_message_number: number; messages_count: number; position: number }> {
  const body = objectBody(raw, '{messages: [...]}');
  onlyKeys(body, ['messages']);
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) throw invalidRequest('messages must be a non-empty list of JSON objects');
  if (messages.length > MAX_MESSAGES_PER_POST) throw invalidRequest(`at most ${MAX_MESSAGES_PER_POST} messages per request`);
  const bad = messages.findIndex((m) => typeof m !== 'object' || m === null || Array.isArray(m));
  if (bad >= 0) throw invalidRequest(`messages[${bad}] is not a JSON object`);
  if (meta.datatargetType === 'datasync') throw conflict('a datasync datatarget is fed by the service; messages cannot be posted to it');
  const chunks = chunkRecords(messages);
  let first = 0;
  const { position } = await appendDecided(store, datatargetStream(id), (last) => {
    const { lastMessageNumber } = liveHead(last, id);
    first = lastMessageNumber + 1;
    let next = first;
    return chunks.map((chunk) => {
      const data: MessagesPosted = { first_message_number: next, messages: chunk, last_message_number: next + chunk.length - 1 };
      next += chunk.length;
      return { type: MESSAGES_POSTED, data, metadata: metadata(meta) };
    });
  });
  return { first_message_number: first, messages_count: messages.length, position };
}

const METHODS = ['POST', 'PUT', 'PATCH', 'GET', 'DELETE'];
const FORBIDDEN_HEADERS = ['host', 'content-length', 'transfer-encoding', 'connection', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];

function validUrl(value: unknown): string {
  if (typeof value !== 'string' || value.length > 2048) throw invalidRequest('request.url must be an http(s) URL of at most 2048 characters');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidRequest(`request.url "${value.slice(0, 100)}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidRequest('request.url must be http:// or https://');
  if (url.username || url.password) throw invalidRequest('request.url must not carry credentials; send them in request.headers');
  return url.toString();
}

function batchSize(value: unknown): number {
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > 1000) throw invalidRequest('max_batch_size must be a whole number from 1 to 1000');
  return value as number;
}

function interval(value: unknown): string {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 86_400) throw invalidRequest('min_request_interval must be a number of seconds from 0 to 86400');
  return String(n);
}

function secret(value: unknown, secrets: SecretBox): string | null {
  if (value === null || value === '') return null;
  if (typeof value !== 'string' || value.length < 16 || value.length > 256) throw invalidRequest('secret must be a string of 16 to 256 characters (whsec_<base64> or plain)');
  return secrets.seal(value);
}

/** request {url, method, headers, format, content, is_batched} as created or patched (patch: only what is sent). */
function requestOf(raw: unknown, current?: OutletDefinition['request']): { request: OutletDefinition['request']; isBatched?: boolean } {
  const r = objectBody(raw, 'request: {url, method, headers, format, content, is_batched}');
  onlyKeys(r, ['url', 'method', 'headers', 'format', 'content', 'is_batched']);
  if (!current && r.url === undefined) throw invalidRequest('request.url is required');
  const method = r.method === undefined ? (current?.method ?? 'POST') : String(r.method).toUpperCase();
  if (!METHODS.includes(method)) throw invalidRequest(`request.method must be one of ${METHODS.join(', ')}`);
  let headers = current?.headers ?? {};
  if (r.headers !== undefined) {
    const h = objectBody(r.headers, 'request.headers: {name: value}');
    if (Object.keys(h).length > 50) throw invalidRequest('request.headers: at most 50 headers');
    for (const [name, value] of Object.entries(h)) {
      if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/.test(name) || typeof value !== 'string' || /[\r\n]/.test(value) || value.length > 4096) {
        throw invalidRequest(`request.headers: "${name.slice(0, 50)}" must be a header name with a single-line string value`);
      }
      if (FORBIDDEN_HEADERS.includes(name.toLowerCase())) throw invalidRequest(`request.headers: ${name} is set by the service`);
    }
    headers = h as Record<string, string>;
  }
  if (r.format !== undefined && r.format !== 'json') throw invalidRequest('request.format must be "json"');
  if (r.is_batched !== undefined && typeof r.is_batched !== 'boolean') throw invalidRequest('request.is_batched must be true or false');
  return {
    request: { url: r.url === undefined ? current!.url : validUrl(r.url), method, headers, format: 'json', content: r.content === undefined ? (current?.content ?? '{(data)}') : r.content },
    isBatched: r.is_batched as boolean | undefined,
  };
}

export async function createOutlet(store: EventStore, secrets: SecretBox, datatargetId: string, raw: unknown, meta: Meta): Promise<{ outlet_id: string; position: number }> {
  const body = objectBody(raw, '{outlet_type, request: {...}, is_batched?, max_batch_size?, min_request_interval?, secret?}');
  onlyKeys(body, ['outlet_type', 'request', 'is_batched', 'max_batch_size', 'min_request_interval', 'secret', 'enabled']);
  if (body.outlet_type !== undefined && body.outlet_type !== 'webhook') throw invalidRequest('outlet_type must be "webhook"');
  const { request, isBatched } = requestOf(body.request);
  if (body.is_batched !== undefined && typeof body.is_batched !== 'boolean') throw invalidRequest('is_batched must be true or false');
  const outlet: OutletDefinition = {
    outlet_id: randomUUID(),
    datatarget_id: datatargetId,
    outlet_type: 'webhook',
    request,
    is_batched: (body.is_batched as boolean | undefined) ?? isBatched ?? false,
    max_batch_size: body.max_batch_size === undefined ? 100 : batchSize(body.max_batch_size),
    min_request_interval: body.min_request_interval === undefined ? '0' : interval(body.min_request_interval),
    secret_sealed: body.secret === undefined ? null : secret(body.secret, secrets),
    created_at: new Date().toISOString(),
  };
  const { position } = await appendDecided(store, datatargetStream(datatargetId), (last) => {
    const { lastMessageNumber } = liveHead(last, datatargetId);
    return [{ type: OUTLET_CREATED, data: { outlet, last_message_number: lastMessageNumber } satisfies OutletCreated, metadata: metadata(meta) }];
  });
  if (body.enabled === false) await controlOutlet(store, outlet.outlet_id, 'pause', meta);
  return { outlet_id: outlet.outlet_id, position };
}

/** PATCH: request fields, is_batched, max_batch_size, min_request_interval, secret; `enabled` pauses or resumes. */
export async function changeOutlet(store: EventStore, secrets: SecretBox, current: OutletDefinition, raw: unknown, meta: Meta): Promise<number> {
  const body = objectBody(raw, '{request?, is_batched?, max_batch_size?, min_request_interval?, secret?, enabled?}');
  onlyKeys(body, ['request', 'is_batched', 'max_batch_size', 'min_request_interval', 'secret', 'enabled']);
  const changes: OutletChanged['changes'] = {};
  if (body.request !== undefined) {
    const { request, isBatched } = requestOf(body.request, current.request);
    changes.request = request;
    if (isBatched !== undefined) changes.is_batched = isBatched;
  }
  if (body.is_batched !== undefined) {
    if (typeof body.is_batched !== 'boolean') throw invalidRequest('is_batched must be true or false');
    changes.is_batched = body.is_batched;
  }
  if (body.max_batch_size !== undefined) changes.max_batch_size = batchSize(body.max_batch_size);
  if (body.min_request_interval !== undefined) changes.min_request_interval = interval(body.min_request_interval);
  if (body.secret !== undefined) changes.secret_sealed = secret(body.secret, secrets);
  if (body.enabled !== undefined && typeof body.enabled !== 'boolean') throw invalidRequest('enabled must be true or false');
  if (Object.keys(changes).length === 0 && body.enabled === undefined) throw invalidRequest('Nothing to change');
  let position = 0;
  if (Object.keys(changes).length > 0) {
    ({ position } = await appendDecided(store, datatargetStream(current.datatarget_id), (last) => {
      const { lastMessageNumber } = liveHead(last, current.datatarget_id);
      return [{ type: OUTLET_CHANGED, data: { outlet_id: current.outlet_id, changes, last_message_number: lastMessageNumber } satisfies OutletChanged, metadata: metadata(meta) }];
    }));
  }
  if (body.enabled !== undefined) position = await controlOutlet(store, current.outlet_id, body.enabled ? 'resume' : 'pause', meta);
  return position;
}

export async function deleteOutlet(store: EventStore, current: OutletDefinition, meta: Meta): Promise<number> {
  const { position } = await appendDecided(store, datatargetStream(current.datatarget_id), (last) => {
    const { lastMessageNumber } = liveHead(last, current.datatarget_id);
    return [{ type: OUTLET_DELETED, data: { outlet_id: current.outlet_id, last_message_number: lastMessageNumber }, metadata: metadata(meta) }];
  });
  return position;
}

/** The state an outlet stream's last event leaves. */
export function outletStateOf(last: RecordedEvent | undefined): OutletState {
  return last ? (last.data as DeliveryAttempted | OutletControlled).state : INITIAL_OUTLET_STATE;
}

/**
 * Operator controls on the outlet stream: pause, resume (also after it paused itself), retry now
 * (skips the backoff), rewind (deliver again from message N: the next batch starts at N).
 */
export async function controlOutlet(store: EventStore, outletId: string, action: OutletControlled['action'], meta: Meta, toMessageNumber?: number): Promise<number> {
  const { position } = await appendDecided(store, outletStream(outletId), (last) => {
    const state = outletStateOf(last);
    const at = new Date().toISOString();
    let next: OutletState;
    switch (action) {
      case 'pause':
        next = { ...state, paused: 'operator' };
        break;
      case 'paused_failing':
        next = { ...state, paused: 'failing' };
        break;
      case 'resume':
        next = { ...state, paused: null, retry_at: null, failing_since: state.failures > 0 ? at : null };
        break;
      case 'retry':
        next = { ...state, retry_at: null };
        break;
      case 'rewind':
        if (!Number.isSafeInteger(toMessageNumber) || toMessageNumber! < 1) throw invalidRequest('to_message_number must be a message number (1 or more)');
        next = { ...state, last_delivered_message_number: toMessageNumber! - 1, batch_number: state.batch_number + 1, failures: 0, failing_since: null, retry_at: null };
        break;
    }
    const data: OutletControlled = { outlet_id: outletId, action, ...(toMessageNumber !== undefined ? { to_message_number: toMessageNumber } : {}), by: meta.actor, at, state: next };
    return [{ type: OUTLET_CONTROLLED, data, metadata: metadata(meta) }];
  });
  return position;
}

