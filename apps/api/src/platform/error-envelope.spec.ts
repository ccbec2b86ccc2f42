import { HttpException, NotFoundException } from '@nestjs/common';
import { AppError } from '#mds/platform';
import { mapError } from './error-envelope';

const req = { id: 'r1', method: 'GET', url: '/api/x/?access-token=t', headers: { 'content-type': 'text/csv' } };

describe('error envelope mapping', () => {
  it('keeps the status and code of contract errors', () => {
    expect(mapError(new AppError(422, 'validation_error', 'bad field', [{ index: 0 }]), req, 1024)).toEqual({
      status: 422,
      body: { error: { code: 'validation_error', message: 'bad field', details: [{ index: 0 }] } },
      fault: false,
    });
  });

  it('maps unknown routes, size and media-type errors', () => {
    expect(mapError(new NotFoundException(), req, 1024).body).toEqual({ error: { code: 'not_found', message: 'No route for GET /api/x/' } });
    expect(mapError(new HttpException('too big', 413), req, 2048).body.error.message).toBe('Request body is larger than the limit of 2 KiB (2048 bytes)');
    expect(mapError({ statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }, req, 1).body.error).toEqual({
      code: 'unsupported_media_type',
      message: 'Unsupported Content-Type "text/csv"; send application/json',
    });
  });

  it("answers the event log's unavailability with 503 and its unresolved conflicts with 409", async () => {
    // The port's errors, by their classes (tests may import the event store; the app matches their code).
    const { EventStoreAccessDeniedError, EventStoreUnavailableError, IdempotencyConflictError, WrongExpectedRevisionError } = await import('#mds/event-store');
    expect(mapError(new EventStoreUnavailableError('UNAVAILABLE at 10.0.0.3'), req, 1)).toMatchObject({ status: 503, body: { error: { code: 'unavailable' } }, fault: true });
    expect(mapError(new EventStoreUnavailableError('x'), req, 1).body.error.message).not.toContain('10.0.0.3');
    expect(mapError(new EventStoreUnavailableError('x'), req, 1).body.error.message).toContain('nothing was recorded');
    // An append whose answer was lost: never "nothing was recorded", and a retry with the same key is safe.
    const lost = mapError(new EventStoreUnavailableError('x', undefined, { outcomeUnknown: true }), req, 1);
    expect(lost).toMatchObject({ status: 503, body: { error: { code: 'unavailable', message: expect.stringContaining('may have been') } }, fault: true });
    expect(lost.body.error.message).toContain('same Idempotency-Key');
    expect(lost.body.error.message).not.toContain('nothing was recorded');
    expect(mapError(new EventStoreAccessDeniedError('denied'), req, 1)).toMatchObject({ status: 503, body: { error: { code: 'unavailable', message: expect.stringContaining('EVENTSTORE_URL') } } });
    expect(mapError(new WrongExpectedRevisionError('s-1', 3, 4), req, 1)).toMatchObject({ status: 409, body: { error: { code: 'conflict' } }, fault: false });
    expect(mapError(new IdempotencyConflictError('s-1', 'some'), req, 1).status).toBe(409);
  });

  it("answers an append larger than the event log takes with 413 naming the limit, not 500", async () => {
    const req = { id: 'r', method: 'POST', url: '/api/customers/upload/' } as never;
    const { EventStoreAppendTooLargeError } = await import('#mds/event-store');
    const mapped = mapError(new EventStoreAppendTooLargeError(1_048_576, 'the append of 3 events is 2 MiB'), req, 1);
    expect(mapped).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
    expect(mapped.body.error.message).toMatch(/1 MiB|1048576|1,048,576/);
  });

  it('hides the details of unexpected errors behind a 500 with the request id', () => {
    const mapped = mapError(new Error('connection refused at 10.0.0.3'), req, 1);
    expect(mapped).toEqual({ status: 500, body: { error: { code: 'internal_error', message: 'Internal server error (request id r1)' } }, fault: true });
  });
});
