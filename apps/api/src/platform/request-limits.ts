import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidRequest, AppError } from '#mds/platform';

/** Most query parameters a request may have; the widest route takes about a dozen. */
export const MAX_QUERY_PARAMETERS = 100;

/**
 * What is refused before a route sees the request: a compressed body (the API takes JSON as sent;
 * inflating first would let a few bytes become gigabytes), more query parameters than any route
 * takes, a NUL character in the URL (PostgreSQL cannot store one, so it can match nothing), and a
 * malformed percent-encoding in the query (the parser would keep `%ff` as those three characters).
 */
export function installRequestLimits(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request) => {
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && String(encoding).trim().toLowerCase() !== 'identity') {
      throw new AppError(415, 'unsupported_media_type', `Content-Encoding ${JSON.stringify(String(encoding)).slice(0, 40)} is not accepted; send the body uncompressed`);
    }
    const q = request.url.indexOf('?');
    if (q === -1) return;
    const query = request.url.slice(q + 1);
    let parameters = query === '' ? 0 : 1;
    for (let i = query.indexOf('&'); i !== -1 && parameters <= MAX_QUERY_PARAMETERS; i = query.indexOf('&', i + 1)) parameters++;
    if (parameters > MAX_QUERY_PARAMETERS) throw invalidRequest(`A request may have at most ${MAX_QUERY_PARAMETERS} query parameters`);
    if (/%00/i.test(request.url)) throw invalidRequest('The URL holds a NUL character (%00), which no value can contain');
    if (query.includes('%') && !decodes(query)) throw invalidRequest(MALFORMED_PERCENT_ENCODING('query string'));
  });
}

const MALFORMED_PERCENT_ENCODING = (part: string) =>
  `The URL's ${part} has a malformed percent-encoding: each % must start %XX hex escapes of UTF-8 (a literal % is %25)`;

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Errors the router finds before any hook runs (a path whose percent-encoding is not UTF-8, a broken
 * absolute-form target, a route parameter over its length) answered in the envelope like every
 * other, instead of Fastify's own body.
 */
export function frameworkErrorHandler(send: (err: unknown, request: FastifyRequest, reply: FastifyReply) => void) {
  return (err: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('x-request-id', request.id);
    if (err.code !== 'FST_ERR_BAD_URL') return send(err, request, reply);
    const path = request.url.split('?', 1)[0];
    send(invalidRequest(decodes(path) ? 'The request target is not a valid URL' : MALFORMED_PERCENT_ENCODING('path')), request, reply);
  };
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (too many or too large headers, a
 * malformed request line) still get the `{error: {code, message}}` envelope, then the connection closes.
 * So does a request not arrived whole within the server's requestTimeout (ERR_HTTP_REQUEST_TIMEOUT,
 * raised by Node's connection check, possibly while Fastify waits on the body).
 */
export function clientErrorHandler(requestTimeoutMs: number) {
  return function onClientError(this: { log?: { info(o: object, m: string): void } } | void, err: Error & { code?: string }, socket: Socket): void {
    const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    // A response already under way cannot be followed by another on the same connection.
    const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent === true;
    if (!socket.writable || answering) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : timeout ? 408 : err.code === 'HPE_URI_TOO_LONG' ? 414 : 400;
    const message =
      status === 431
        ? 'The request headers are too many or too large (at most 16 KiB in all)'
        : status === 408
          ? `The request did not arrive whole (headers and body) within ${requestTimeoutMs} ms; send it at a steady pace, or in smaller requests`
          : `The request could not be read as HTTP (${err.code ?? 'malformed'})`;
    const body = JSON.stringify({ error: { code: status === 431 ? 'invalid_request' : status === 408 ? 'request_timeout' : 'invalid_request', message } });
    const response = `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
    if (!timeout) {
      socket.end(response);
      return;
    }
    this?.log?.info({ remoteAddress: socket.remoteAddress, ms: requestTimeoutMs }, 'request cut: not arrived whole within the request timeout');
    // Destroyed once the answer is flushed: a client still trickling bytes would otherwise keep the
    // half-open connection, which no timeout watches any more.
    socket.end(response, () => socket.destroy());
  };
}
