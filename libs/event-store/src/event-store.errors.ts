import type { ExpectedRevision } from './event-store.port';

export class WrongExpectedRevisionError extends Error {
  override name = 'WrongExpectedRevisionError';
  /** A conflict the caller did not resolve: answered 409 by the HTTP layer. */
  readonly code = 'MDS_WRONG_EXPECTED_REVISION';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${stream}: expected revision ${expected}, actual ${actual}`);
  }
}

/** Some, but not all, of the appended event ids are already stored: not a clean retry. */
export class IdempotencyConflictError extends Error {
  override name = 'IdempotencyConflictError';
  readonly code = 'MDS_IDEMPOTENCY_CONFLICT';
  constructor(readonly stream: string, message: string) {
    super(`stream ${stream}: ${message}`);
  }
}

export class InvalidAppendError extends Error {
  override name = 'InvalidAppendError';
}

/**
 * The log cannot be reached now (the server is down or restarting, a deadline passed, no leader):
 * worth retrying. `code` lets the HTTP layer answer 503 without importing the event store.
 * `outcomeUnknown`: an append was sent and its answer lost, so it may have been recorded; a retry
 * with the same event ids is then safe (the log's idempotence), one with new ids may record it twice.
 */
export class EventStoreUnavailableError extends Error {
  override name = 'EventStoreUnavailableError';
  readonly code = 'MDS_EVENT_LOG_UNAVAILABLE';
  readonly outcomeUnknown: boolean;
  constructor(message: string, cause?: unknown, options: { outcomeUnknown?: boolean } = {}) {
    super(message, { cause });
    this.outcomeUnknown = options.outcomeUnknown ?? false;
  }
}

/**
 * One append larger than the log takes (EventStoreDB's MaxAppendSize) even with the events' data
 * stored ahead of it, or refused as such by the server: nothing was recorded. `limit` is the log's
 * maximum in bytes; the HTTP layer answers 413 naming it.
 */
export class EventStoreAppendTooLargeError extends Error {
  override name = 'EventStoreAppendTooLargeError';
  readonly code = 'MDS_EVENT_LOG_APPEND_TOO_LARGE';
  constructor(
    readonly limit: number,
    message: string,
  ) {
    super(message);
  }
}

/** The log refused the service's credentials or permissions: an operator must fix the configuration. */
export class EventStoreAccessDeniedError extends Error {
  override name = 'EventStoreAccessDeniedError';
  readonly code = 'MDS_EVENT_LOG_ACCESS_DENIED';
}
