import type { ExpectedRevision } from './event-store.port';

export class WrongExpectedRevisionError extends Error {
  override name = 'WrongExpectedRevisionError';
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
  constructor(readonly stream: string, message: string) {
    super(`stream ${stream}: ${message}`);
  }
}

export class InvalidAppendError extends Error {
  override name = 'InvalidAppendError';
}
