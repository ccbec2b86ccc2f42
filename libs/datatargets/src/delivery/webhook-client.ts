import { lookup as dnsLookup } from 'node:dns/promises';
import { STATUS_CODES } from 'node:http';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Agent, buildConnector, Dispatcher } from 'undici';
import { destinationProblem } from './destination';
import { applyMasks, HeaderList, isCredentialParam, MASK, maskSpans, maskText, renderReply, renderRequest, sensitiveValues } from './raw-message';
import { secretSpellings, signPayload } from './signing';

/** undici, loaded by the first delivery: only the outlet worker sends, and loading it takes ~0.1 s of CPU. */
const undici = () => require('undici') as typeof import('undici');

export interface WebhookRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

export interface DeliveryOptions {
  /** OUTLET_ALLOW_PRIVATE: skip the destination check (tests, on-premise receivers). */
  allowPrivate: boolean;
  connectTimeoutMs: number;
  /** Everything after the request starts: DNS, connect, headers and body of the reply. */
  totalTimeoutMs: number;
  replyCapBytes?: number;
  /** When set, the request is signed the Standard Webhooks way (see signing.ts for the key). */
  secret?: string;
  /** Sent as `webhook-id`; receivers deduplicate on it, so retries of one batch keep it. */
  webhookId: string;
  now?: () => Date;
  /** Replaces DNS, for tests. */
  lookup?: (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;
  /**
   * Keeps the connection open for the next delivery with the same key (one caller at a time per key,
   * e.g. an outlet). New connections are still resolved, checked and pinned; a connection that timed
   * out, was cut at the reply cap or failed is dropped. Absent: a connection per delivery.
   */
  keepAliveKey?: string;
  /** More values to mask wherever they show (the outlet's URL query credentials, which no header name gives away). */
  masked?: readonly string[];
}

export interface DeliveryResult {
  ok: boolean;
  httpStatus?: number;
  failReason?: string;
  refused?: boolean;
  retryAfterMs?: number;
  startedAt: Date;
  requestTimeMs: number;
  rawRequest: string;
  /**
   * The request line and header block of `rawRequest` (masked); the rest of it is the body as sent with
   * `bodyMasks` masked, so the log may keep the head and the masks and rebuild the body from the messages.
   */
  requestHead: string;
  /** Where masking replaced a secret in the body (a message carrying one): `[offset, length]`s. */
  bodyMasks?: Array<[number, number]>;
  /** The `webhook-signature` sent (HMAC of the body; says nothing of the secret). */
  signature?: string;
  rawReply?: string;
}

const DEFAULT_REPLY_CAP_BYTES = 65_536;
// Set by the client alone: a caller's copy would contradict the signature.
const SIGNING_HEADERS = new Set(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
// Methods for which undici sends `content-length: 0` without a body.
const PAYLOAD_METHODS = new Set(['POST', 'PUT', 'PATCH', 'QUERY']);

/** Sends one webhook request. Network and HTTP problems are results, never exceptions. */
export async function deliver(request: WebhookRequest, options: DeliveryOptions): Promise<DeliveryResult> {
  const now = options.now ?? (() => new Date());
  const target = parseTarget(request);
  const startedAt = now();
  const headers = outgoingHeaders(request, options, Math.floor(startedAt.getTime() / 1000), target.url);
  // Short credential values are masked by name in the request line only (as headers are): masking
  // every "1" of a reply would garble it.
  const secrets = [...(options.secret ? secretSpellings(options.secret) : []), ...sensitiveValues(headers), ...(options.masked ?? []).filter((v) => v.length >= 8)];
  const mask = (text: string): string => maskText(text, secrets);
  const requestTarget = target.url ? target.url.pathname + maskedSearch(target.url) : request.url;
  const head = mask(renderRequest(request.method, requestTarget, wireHeaders(request, headers, target.url, options.keepAliveKey !== undefined), undefined));
  // The body is masked apart from the head (a secret never spans the blank line between them), once.
  const bodyMasks = maskSpans(request.body ?? '', secrets);
  const sent = {
    rawRequest: head + applyMasks(request.body ?? '', bodyMasks),
    requestHead: head,
    ...(bodyMasks.length > 0 ? { bodyMasks } : {}),
    ...(header(headers, 'webhook-signature') !== undefined ? { signature: header(headers, 'webhook-signature') } : {}),
  };
  if (target.problem !== undefined) {
    return { ok: false, failReason: mask(target.problem), startedAt, requestTimeMs: 0, ...sent };
  }

  const clock = performance.now();
  const exchange = await exchangeOnce(target.url, request, headers, options);
  const timing = { startedAt, requestTimeMs: Math.max(0, Math.round(exchange.endedAt - clock)), ...sent };

  if (exchange.status === undefined) {
    const result: DeliveryResult = { ok: false, failReason: mask(describeFailure(exchange, options)), ...timing };
    if (exchange.refused) result.refused = true;
    return result;
  }

  const status = exchange.status;
  const body = Buffer.concat(exchange.body);
  const rawReply = mask(renderReply(status, exchange.statusMessage, exchange.replyHeaders, body, exchange.truncated ? body.length : undefined));
  const result: DeliveryResult = { ok: false, httpStatus: status, ...timing, rawReply };
  if (status >= 200 && status < 300) {
    if (exchange.timedOut || exchange.error !== undefined) {
      result.failReason = mask(`${describeFailure(exchange, options)} (HTTP ${status} received)`);
    } else {
      result.ok = true;
    }
    return result;
  }

  const location = header(exchange.replyHeaders, 'location');
  result.failReason = mask(
    status >= 300 && status < 400 && location !== undefined
      ? `redirect not followed (${status} to ${absoluteLocation(location, target.url)})`
      : `HTTP ${status}`,
  );
  const retryAfterMs = parseRetryAfter(header(exchange.replyHeaders, 'retry-after'), now());
  if (retryAfterMs !== undefined) result.retryAfterMs = retryAfterMs;
  return result;
}

type Target = { url: URL; problem?: undefined } | { url?: URL; problem: string };

function parseTarget(request: WebhookRequest): Target {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { problem: `invalid URL "${request.url}"` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { problem: `invalid URL "${request.url}": only http: and https: are delivered to` };
  }
  if (request.method.toUpperCase() === 'CONNECT') return { url, problem: 'invalid request: CONNECT is not a webhook method' };
  return { url };
}

function outgoingHeaders(request: WebhookRequest, options: DeliveryOptions, timestamp: number, url: URL | undefined): HeaderList {
  const headers: HeaderList = Object.entries(request.headers).filter(([name]) => !SIGNING_HEADERS.has(name.toLowerCase()));
  if (url && (url.username || url.password) && header(headers, 'authorization') === undefined) {
    const credentials = `${percentDecoded(url.username)}:${percentDecoded(url.password)}`;
    headers.push(['authorization', `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`]);
  }
  headers.push(['webhook-id', options.webhookId], ['webhook-timestamp', String(timestamp)]);
  if (options.secret) headers.push(['webhook-signature', signPayload(options.secret, options.webhookId, timestamp, request.body ?? '')]);
  return headers;
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a stray `%` the URL parser let through
  }
}

/** The header block as undici writes it: host, connection, the caller's headers, content-length. */
function wireHeaders(request: WebhookRequest, headers: HeaderList, url: URL | undefined, keepAlive: boolean): HeaderList {
  const host = header(headers, 'host') ?? url?.host;
  const rest = headers.filter(([name]) => !['host', 'content-length'].includes(name.toLowerCase()));
  const length = Buffer.byteLength(request.body ?? '');
  return [
    ...(host === undefined ? [] : ([['host', host]] as HeaderList)),
    ['connection', keepAlive ? 'keep-alive' : 'close'],
    ...rest,
    ...(length > 0 || PAYLOAD_METHODS.has(request.method.toUpperCase()) ? ([['content-length', String(length)]] as HeaderList) : []),
  ];
}

interface Exchange {
  settled: boolean;
  endedAt: number;
  connected: boolean;
  refused: boolean;
  /** A connect-phase failure already put in words (refusal, DNS). */
  problem?: string;
  timedOut: boolean;
  error?: unknown;
  status?: number;
  statusMessage: string;
  replyHeaders: HeaderList;
  body: Buffer[];
  bodyBytes: number;
  truncated: boolean;
}

async function exchangeOnce(url: URL, request: WebhookRequest, headers: HeaderList, options: DeliveryOptions): Promise<Exchange> {
  const cap = options.replyCapBytes ?? DEFAULT_REPLY_CAP_BYTES;
  const exchange: Exchange = {
    settled: false,
    endedAt: 0,
    connected: false,
    refused: false,
    timedOut: false,
    statusMessage: '',
    replyHeaders: [],
    body: [],
    bodyBytes: 0,
    truncated: false,
  };
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = () => {
      if (exchange.settled) return;
      exchange.settled = true;
      exchange.endedAt = performance.now();
      resolve();
    };
  });

  // One agent per delivery, or per keep-alive key: its only connector is the pinned one, and
  // destroying it drops whatever is still open (a reply past the cap, a receiver that never answers).
  const pooled = options.keepAliveKey === undefined ? undefined : pooledAgent(url, options);
  if (pooled) pooled.current = exchange;
  const agent =
    pooled?.agent ??
    new (undici().Agent)({
      connect: pinnedConnector(url, options, () => exchange),
      headersTimeout: options.totalTimeoutMs,
      bodyTimeout: options.totalTimeoutMs,
    });
  const timer = setTimeout(() => {
    exchange.timedOut = !exchange.settled;
    finish();
  }, options.totalTimeoutMs);

  const handler: Dispatcher.DispatchHandler = {
    // Present so undici takes this for a handler of its current API (without it: "invalid onConnect method").
    onRequestStart() {},
    onResponseStart(controller, statusCode, parsed, statusMessage) {
      if (statusCode < 200) return; // 1xx informational: the answer follows
      exchange.status = statusCode;
      exchange.statusMessage = statusMessage || STATUS_CODES[statusCode] || '';
      exchange.replyHeaders = replyHeaderList(controller.rawHeaders, parsed);
    },
    onResponseData(controller, chunk) {
      if (exchange.settled) return;
      const room = cap - exchange.bodyBytes;
      const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
      exchange.body.push(Buffer.from(kept));
      exchange.bodyBytes += kept.length;
      if (kept.length < chunk.length) {
        exchange.truncated = true;
        finish();
        controller.abort(new Error(`reply cut at ${cap} bytes`));
      }
    },
    onResponseEnd() {
      finish();
    },
    onResponseError(_controller, error) {
      if (exchange.settled) return;
      exchange.error = error;
      finish();
    },
  };

  try {
    agent.dispatch(
      {
        origin: url.origin,
        path: url.pathname + url.search,
        method: request.method,
        headers: headers.flat(),
        body: request.body ?? null,
        reset: !pooled,
      },
      handler,
    );
  } catch (error) {
    exchange.error = error;
    finish();
  }

  await finished;
  clearTimeout(timer);
  const clean = exchange.status !== undefined && !exchange.timedOut && !exchange.truncated && exchange.error === undefined;
  if (!pooled || !clean) {
    if (pooled) KEPT_ALIVE.delete(pooled.key);
    await agent.destroy().catch(() => undefined);
  }
  return exchange;
}

type ConnectSink = Pick<Exchange, 'problem' | 'refused' | 'connected' | 'settled'>;

interface PooledAgent {
  key: string;
  agent: Agent;
  current: ConnectSink;
}

const KEPT_ALIVE = new Map<string, PooledAgent>();

function pooledAgent(url: URL, options: DeliveryOptions): PooledAgent {
  const key = JSON.stringify([options.keepAliveKey, url.origin, options.allowPrivate, options.connectTimeoutMs, options.totalTimeoutMs, options.lookup !== undefined]);
  let pooled = KEPT_ALIVE.get(key);
  if (!pooled) {
    const entry: PooledAgent = { key, current: { settled: true, connected: false, refused: false }, agent: undefined as unknown as Agent };
    entry.agent = new (undici().Agent)({
      connect: pinnedConnector(url, options, () => entry.current),
      headersTimeout: options.totalTimeoutMs,
      bodyTimeout: options.totalTimeoutMs,
      connections: 1,
      keepAliveTimeout: 10_000,
    });
    KEPT_ALIVE.set(key, entry);
    pooled = entry;
  }
  return pooled;
}

/** Closes the kept-alive connections whose key starts with `prefix` (all without one): a worker stopping. */
export async function closeKeptAliveConnections(prefix = ''): Promise<void> {
  const mine = [...KEPT_ALIVE.values()].filter((p) => (JSON.parse(p.key) as [string])[0].startsWith(prefix));
  for (const p of mine) KEPT_ALIVE.delete(p.key);
  await Promise.all(mine.map((p) => p.agent.destroy().catch(() => undefined)));
}

/*
 * Resolves, checks and connects in one step, to the very addresses it checked: nothing between
 * the check and the connect can resolve the name again (DNS rebinding). Addresses are tried in
 * resolver order, so an unreachable IPv6 address falls back to IPv4.
 */
function pinnedConnector(url: URL, options: DeliveryOptions, sink: () => ConnectSink): buildConnector.connector {
  const connect = undici().buildConnector({ timeout: options.connectTimeoutMs });
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const servername = isIP(hostname) ? undefined : hostname.replace(/\.$/, '');

  return (connectOptions, callback) => {
    const fail = (problem: string, refused = false): void => {
      sink().problem = problem;
      sink().refused = refused;
      callback(new Error(problem), null);
    };
    const attempt = (addresses: string[], index: number, lastError: Error | undefined): void => {
      if (sink().settled) return void callback(lastError ?? new Error('delivery already finished'), null);
      if (index >= addresses.length) return void callback(lastError ?? new Error('no address to connect to'), null);
      try {
        connect({ ...connectOptions, hostname: addresses[index], servername }, (error, socket) => {
          if (error) return attempt(addresses, index + 1, error);
          sink().connected = true;
          callback(null, socket);
        });
      } catch (error) {
        attempt(addresses, index + 1, error instanceof Error ? error : new Error(String(error)));
      }
    };

    resolveAddresses(hostname, options).then(
      (addresses) => {
        if (typeof addresses === 'string') return fail(addresses);
        const refusal = options.allowPrivate ? undefined : addresses.map(destinationProblem).find((p) => p !== undefined);
        if (refusal !== undefined) return fail(`destination refused: ${refusal}`, true);
        attempt(addresses, 0, undefined);
      },
      (error: unknown) => fail(`DNS lookup of ${hostname} failed: ${errorCode(error) ?? String(error)}`),
    );
  };
}

/** The IP addresses to connect to, or why there are none. Only ever IP literals, so connecting never resolves again. */
async function resolveAddresses(hostname: string, options: DeliveryOptions): Promise<string[] | string> {
  if (isIP(hostname)) return [hostname];
  const lookup = options.lookup ?? ((name: string) => dnsLookup(name, { all: true }) as Promise<Array<{ address: string; family: 4 | 6 }>>);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolveTimeout) => {
    timer = setTimeout(() => resolveTimeout(`DNS lookup of ${hostname} timed out after ${options.connectTimeoutMs} ms`), options.connectTimeoutMs);
  });
  try {
    const found = await Promise.race([lookup(hostname), timeout]);
    if (typeof found === 'string') return found;
    const addresses = found.map((entry) => entry.address);
    const notIp = addresses.find((address) => !isIP(address));
    if (notIp !== undefined) return `DNS lookup of ${hostname} gave "${notIp}", not an IP address`;
    return addresses.length > 0 ? addresses : `DNS lookup of ${hostname} found no address`;
  } finally {
    clearTimeout(timer);
  }
}

function describeFailure(exchange: Exchange, options: DeliveryOptions): string {
  if (exchange.timedOut) {
    if (exchange.status !== undefined) return `reply not complete within ${options.totalTimeoutMs} ms`;
    return exchange.connected ? `no reply within ${options.totalTimeoutMs} ms` : `no connection within ${options.totalTimeoutMs} ms`;
  }
  if (exchange.problem !== undefined) return exchange.problem;
  const error = exchange.error;
  const message = error instanceof Error ? error.message : String(error);
  const code = errorCode(error);
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `connect timeout after ${options.connectTimeoutMs} ms`;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by the destination';
    case 'EHOSTUNREACH':
      return 'host unreachable';
    case 'ENETUNREACH':
      return 'network unreachable';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return exchange.status === undefined ? `no reply within ${options.totalTimeoutMs} ms` : `reply not complete within ${options.totalTimeoutMs} ms`;
    case 'UND_ERR_SOCKET':
      return 'connection closed by the destination before a complete reply';
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      return 'reply body does not match its Content-Length';
    case 'UND_ERR_INVALID_ARG':
    case 'UND_ERR_NOT_SUPPORTED':
      return `invalid request: ${message}`;
  }
  if (code !== undefined && /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/.test(code)) {
    return `TLS error: ${message}`;
  }
  return message || 'delivery failed';
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function replyHeaderList(raw: Dispatcher.DispatchController['rawHeaders'], parsed: Record<string, string | string[] | undefined>): HeaderList {
  // The raw list keeps the receiver's spelling and order; the parsed object is the fallback.
  if (Array.isArray(raw)) {
    const list: HeaderList = [];
    for (let i = 0; i + 1 < raw.length; i += 2) list.push([String(raw[i]), String(raw[i + 1])]);
    return list;
  }
  return Object.entries(parsed).flatMap(([name, value]): HeaderList => (value === undefined ? [] : [value].flat().map((v): [string, string] => [name, v])));
}

function header(headers: HeaderList, name: string): string | undefined {
  return headers.find(([n]) => n.toLowerCase() === name)?.[1];
}

function absoluteLocation(location: string, base: URL): string {
  try {
    return new URL(location, base).href;
  } catch {
    return location;
  }
}

/** Retry-After as delay-seconds or an HTTP-date; a date in the past means now. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Date.parse reads "1.5" or "-5" as dates; every HTTP-date form names a day or month.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/** The query with the values of credential parameters masked (`?api_key=***`), as the delivery log shows it. */
function maskedSearch(url: URL): string {
  if (!url.search) return '';
  return `?${url.search
    .slice(1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      return eq !== -1 && isCredentialParam(decodeURIComponentSafe(name)) ? `${name}=${MASK}` : pair;
    })
    .join('&')}`;
}

const decodeURIComponentSafe = (s: string): string => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
};
