import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, formatSize, type ErrorBody, type Logger } from '#mds/platform';

const CODE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  408: 'request_timeout',
  409: 'conflict',
  411: 'length_required',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_error',
  429: 'rate_limited',
  503: 'unavailable',
};

export interface MappedError {
  status: number;
  body: ErrorBody;
  /** Server faults are logged with their stack; client errors are not. */
  fault: boolean;
}

/** Maps anything thrown while serving a request to the `{error: {code, message}}` envelope. */
export function mapError(err: unknown, request: { id: string; method: string; url: string; headers?: Record<string, unknown> }, bodyLimit: number): MappedError {
  if (err instanceof AppError) return { status: err.status, body: err.toBody(), fault: err.status >= 500 };
  // The event log's errors, recognised by their code (apps do not import the event store).
  switch ((err as { code?: unknown } | null)?.code) {
    case 'MDS_EVENT_LOG_UNAVAILABLE':
      // An append sent whose answer was lost (EventStoreUnavailableError.outcomeUnknown) may have been recorded.
      if ((err as { outcomeUnknown?: unknown }).outcomeUnknown === true) {
        return {
          ...envelope(503, 'unavailable', 'The event log is unavailable just now and did not say whether this request was recorded: it may have been. Retry it with the same Idempotency-Key (an import is then recorded once)'),
          fault: true,
        };
      }
      return { ...envelope(503, 'unavailable', 'The event log is unavailable just now; nothing was recorded. Retry the request'), fault: true };
    case 'MDS_EVENT_LOG_ACCESS_DENIED':
      return { ...envelope(503, 'unavailable', "The event log refused the service's credentials; nothing was recorded. An operator must fix EVENTSTORE_URL"), fault: true };
    case 'MDS_EVENT_LOG_APPEND_TOO_LARGE': {
      const limit = (err as { limit?: unknown }).limit;
      const most = typeof limit === 'number' ? `${formatSize(limit)} (${limit} bytes)` : 'its maximum';
      return envelope(413, 'payload_too_large', `The request holds more than the event log takes in one append: at most ${most}, EventStoreDB's MaxAppendSize, even with the records stored ahead of the append; nothing was recorded. Send fewer records per request`);
    }
    case 'MDS_WRONG_EXPECTED_REVISION':
    case 'MDS_IDEMPOTENCY_CONFLICT':
      return envelope(409, 'conflict', 'A concurrent change came first; nothing was recorded. Retry the request');
  }
  const e = err as { code?: string; statusCode?: number; message?: string; validation?: unknown };
  // Body problems are found by Fastify's parser (Nest hands them on as HttpExceptions of the same status).
  const status = err instanceof HttpException ? err.getStatus() : e.statusCode;
  if (status === 413) return envelope(413, 'payload_too_large', `Request body is larger than the limit of ${formatSize(bodyLimit)} (${bodyLimit} bytes)`);
  if (status === 415) return envelope(415, 'unsupported_media_type', `Unsupported Content-Type ${JSON.stringify(request.headers?.['content-type'] ?? '')}; send application/json`);
  if (e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return envelope(400, 'invalid_request', `Malformed JSON in request body: ${e.message ?? 'cannot parse'}`);
  }
  if (e.validation) return envelope(400, 'invalid_request', e.message ?? 'Invalid request');
  if (err instanceof HttpException) {
    const status = err.getStatus();
    if (status === 404) return envelope(404, 'not_found', `No route for ${request.method} ${request.url.split('?')[0]}`);
    const response = err.getResponse();
    const message = typeof response === 'string' ? response : ((response as { message?: unknown }).message ?? err.message);
    return envelope(status, CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request'), Array.isArray(message) ? message.join('; ') : String(message));
  }
  if (typeof status === 'number' && status >= 400 && status < 500) return envelope(status, CODE_BY_STATUS[status] ?? 'invalid_request', e.message ?? 'Invalid request');
  return { ...envelope(500, 'internal_error', `Internal server error (request id ${request.id})`), fault: true };
}

function envelope(status: number, code: string, message: string): MappedError {
  return { status, body: { error: { code, message } }, fault: false };
}

export function sendError(err: unknown, request: FastifyRequest, reply: FastifyReply, bodyLimit: number, logger: Logger): void {
  const mapped = mapError(err, request, bodyLimit);
  if (mapped.fault) logger.error({ err, reqId: request.id }, 'request failed');
  if (!reply.sent) void reply.status(mapped.status).header('content-type', 'application/json; charset=utf-8').send(mapped.body);
}

/** Nest-level filter: errors thrown by controllers, guards and Nest's own 404. */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  constructor(
    private readonly bodyLimit: number,
    private readonly logger: Logger,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    sendError(exception, ctx.getRequest<FastifyRequest>(), ctx.getResponse<FastifyReply>(), this.bodyLimit, this.logger);
  }
}
