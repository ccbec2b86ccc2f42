import { chunkRecords } from '#mds/imports';
import { conflict, invalidRequest, notFound } from '#mds/platform';
import {
  DATASYNC_DATATYPES,
  INITIAL_OUTLET_STATE,
  type DeliveryAttempted,
  type MessagesPosted,
  type OutletControlled,
  type OutletDefinition,
  type OutletState,
} from './datatarget.events';
import { SERVICE_HEADERS } from './delivery/service-headers';

/**
 * The datatargets context's rules, pure: what a command may do given the stream's last event, and
 * what it appends. Shapes and types of requests are checked by the HTTP layer's DTOs; what is left
 * here needs the context's knowledge (numbering, which headers the service sets, outlet states).
 */

export const MAX_MESSAGES_PER_POST = 10_000;

/** Who asked: recorded in every event's metadata. */
export interface CommandMeta {
  actor: string;
  tokenId?: string;
  requestId?: string;
}

export const metadataOf = (m: CommandMeta) => ({ actor: m.actor, token_id: m.tokenId, request_id: m.requestId });

/** The datatarget's last event: where numbering stands; 404 when there is none or it was deleted. */
export function liveHead(last: { type: string; data: unknown } | undefined, id: string): { lastMessageNumber: number } {
  if (!last || last.type === 'DatatargetDeleted') throw notFound(`No datatarget ${id.slice(0, 64)}`);
  return { lastMessageNumber: (last.data as { last_message_number: number }).last_message_number };
}

/** `{datatarget_type, name, description?, datatype?}`: a datasync datatarget names the datatype it follows, a messages one none. */
export function datatypeOf(type: 'messages' | 'datasync', datatype: string | undefined | null): string | null {
  if (type === 'datasync') {
    if (typeof datatype !== 'string' || !(DATASYNC_DATATYPES as readonly string[]).includes(datatype)) {
      throw invalidRequest(`a datasync datatarget needs datatype: one of ${DATASYNC_DATATYPES.join(', ')}`);
    }
    return datatype;
  }
  if (datatype !== undefined && datatype !== null) throw invalidRequest('datatype is only for datasync datatargets');
  return null;
}

/** The messages of a post: 1 to 10,000 JSON objects. */
export function messagesOf(body: unknown): Array<Record<string, unknown>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('The body must be a JSON object {messages: [...]}');
  const extra = Object.keys(body).find((k) => k !== 'messages');
  if (extra !== undefined) throw invalidRequest(`Unknown key "${extra.slice(0, 50)}"; allowed: messages`);
  const messages = (body as { messages?: unknown }).messages;
  if (!Array.isArray(messages) || messages.length === 0) throw invalidRequest('messages must be a non-empty list of JSON objects');
  if (messages.length > MAX_MESSAGES_PER_POST) throw invalidRequest(`at most ${MAX_MESSAGES_PER_POST} messages per request`);
  const bad = messages.findIndex((m) => typeof m !== 'object' || m === null || Array.isArray(m));
  if (bad >= 0) throw invalidRequest(`messages[${bad}] is not a JSON object`);
  return messages as Array<Record<string, unknown>>;
}

/**
 * Numbers a post's messages after the last one, gap-free, in chunks (events of at most ~1,000
 * messages or ~512 KB). A datasync datatarget is fed by the service only.
 */
export function numberMessages(datatargetType: string, lastMessageNumber: number, messages: unknown[]): MessagesPosted[] {
  if (datatargetType === 'datasync') throw conflict('a datasync datatarget is fed by the service; messages cannot be posted to it');
  let next = lastMessageNumber + 1;
  return chunkRecords(messages).map((chunk) => {
    const data: MessagesPosted = { first_message_number: next, messages: chunk, last_message_number: next + chunk.length - 1 };
    next += chunk.length;
    return data;
  });
}

const FORBIDDEN_HEADERS = ['host', 'content-length', 'transfer-encoding', 'connection', 'webhook-id', 'webhook-timestamp', 'webhook-signature', ...SERVICE_HEADERS];

/** The webhook request of an outlet as sent (create) or patched (only what is sent changes). */
export interface OutletRequestInput {
  url?: string;
  method?: string;
  headers?: Record<string, string>;
  format?: 'json';
  content?: unknown;
  is_batched?: boolean;
  /** Header names whose values are credentials besides those named so (sealed like them). */
  secret_headers?: string[];
}

/** A destination the outlet may be given: http(s), no credentials in the URL (they go in headers, which are masked). */
export function webhookUrl(value: string): string {
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

/** The request an outlet sends: the sent fields over the current ones (or the defaults: POST, the message as content). */
export function outletRequest(input: OutletRequestInput, current?: OutletDefinition['request']): OutletDefinition['request'] {
  if (!current && input.url === undefined) throw invalidRequest('request.url is required');
  let headers = current?.headers ?? {};
  if (input.headers !== undefined) {
    for (const name of Object.keys(input.headers)) {
      if (FORBIDDEN_HEADERS.includes(name.toLowerCase())) throw invalidRequest(`request.headers: ${name} is set by the service`);
    }
    headers = input.headers;
  }
  return {
    url: input.url === undefined ? current!.url : webhookUrl(input.url),
    method: input.method ?? current?.method ?? 'POST',
    headers,
    format: 'json',
    content: input.content === undefined ? (current?.content ?? '{(data)}') : input.content,
  };
}

/** Seconds between two requests, kept as the spec's string ("0"). */
export const intervalOf = (value: number | string): string => String(Number(value));

/** The state an outlet stream's last event leaves. */
export function outletStateOf(last: { data: unknown } | undefined): OutletState {
  return last ? (last.data as DeliveryAttempted | OutletControlled).state : INITIAL_OUTLET_STATE;
}

/**
 * Operator controls: pause, resume (also after the outlet paused itself), retry now (skips the
 * backoff), rewind (deliver again from message N: the next batch starts at N, as a new batch).
 */
export function controlled(state: OutletState, action: OutletControlled['action'], at: string, toMessageNumber?: number): OutletState {
  switch (action) {
    case 'pause':
      return { ...state, paused: 'operator' };
    case 'paused_failing':
      return { ...state, paused: 'failing' };
    case 'resume':
      return { ...state, paused: null, retry_at: null, failing_since: state.failures > 0 ? at : null };
    case 'retry':
      return { ...state, retry_at: null };
    case 'rewind':
      if (!Number.isSafeInteger(toMessageNumber) || toMessageNumber! < 1) throw invalidRequest('to_message_number must be a message number (1 or more)');
      return { ...state, last_delivered_message_number: toMessageNumber! - 1, batch_number: state.batch_number + 1, failures: 0, failing_since: null, retry_at: null };
    case 'start':
      return { ...state, last_delivered_message_number: toMessageNumber! - 1 };
  }
}

/** Where a new outlet starts: at message 1 (`beginning`, the default), or `now`: after the last message there. */
export type OutletStart = 'now' | 'beginning';

/**
 * The state a new outlet starts from: undefined for the initial one (from message 1), else its first
 * batch is the message after `lastMessageNumber`, the last one there when it was created.
 */
export function startingState(start: OutletStart | undefined, lastMessageNumber: number, at: string): OutletState | undefined {
  if (start !== 'now' || lastMessageNumber < 1) return undefined;
  return controlled(INITIAL_OUTLET_STATE, 'start', at, lastMessageNumber + 1);
}
