import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { invalidRequest, AppError } from '#mds/platform';

/** Most query parameters a request may have; the widest route takes about a dozen. */
export const MAX_QUERY_PARAMETERS = 100;

/**
 * What is refused before a route sees the request: a compressed body (the API takes JSON as sent;
 * inflating first would let a few bytes become gigabytes), more query parameters than any route
 * takes, and a NUL character in the URL (PostgreSQL cannot store one, so it can match nothing).
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
  });
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (too many or too large headers, a
 * malformed request line) still get the `{error: {code, message}}` envelope, then the connection closes.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : err.code === 'HPE_URI_TOO_LONG' ? 414 : 400;
  const message =
    status === 431
      ? 'The request headers are too many or too large (at most 16 KiB in all)'
      : status === 408
        ? 'The request took too long to arrive'
        : `The request could not be read as HTTP (${err.code ?? 'malformed'})`;
  const body = JSON.stringify({ error: { code: status === 431 ? 'invalid_request' : status === 408 ? 'request_timeout' : 'invalid_request', message } });
  socket.end(`HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
