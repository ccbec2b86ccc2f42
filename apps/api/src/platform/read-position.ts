import type { FastifyInstance } from 'fastify';
import { invalidRequest, type Logger } from '#mds/platform';
import { readingAfter } from '#mds/projections';
import { sendError } from './error-envelope';

/** The request header a read carries a run's `log_position` in (docs/reference/http.md "Read-your-writes"). */
export const MIN_POSITION_HEADER = 'min-position';

/** The position a `Min-Position` header asks for; undefined without one; a 400 for anything but one whole number ≥ 0. */
export function minPositionOf(value: string | string[] | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value.join(',') : value;
  const position = /^\s*\d{1,16}\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(position)) {
    throw invalidRequest(`Min-Position must be one log position (a whole number, the log_position of a run), got "${text.slice(0, 50)}"`);
  }
  return position;
}

/**
 * `Min-Position: <log position>`: the reads of the request (retrieval, campaign statistics, outlet
 * logs, the audit trail) are served by a replica only once it has replayed that position, else by the
 * primary. Runs after authentication and body parsing, around the route's handler (readingAfter).
 */
export function installReadPosition(fastify: FastifyInstance, bodyLimit: number, logger: Logger): void {
  fastify.addHook('preHandler', (request, reply, done) => {
    let position: number | undefined;
    try {
      position = minPositionOf(request.headers[MIN_POSITION_HEADER]);
    } catch (err) {
      sendError(err, request, reply, bodyLimit, logger);
      return;
    }
    if (position === undefined) done();
    // The handler runs inside done(): everything it awaits keeps the position.
    else readingAfter(position, done);
  });
}
