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

  it('hides the details of unexpected errors behind a 500 with the request id', () => {
    const mapped = mapError(new Error('connection refused at 10.0.0.3'), req, 1);
    expect(mapped).toEqual({ status: 500, body: { error: { code: 'internal_error', message: 'Internal server error (request id r1)' } }, fault: true });
  });
});
