import { applyDecorators, HttpCode, Post, Put } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiQuery, type ApiOperationOptions } from '@nestjs/swagger';
type BodyOptions = Extract<Parameters<typeof ApiBody>[0], { schema: unknown }>;
import { RequirePermission } from '../access/permissions';

/**
 * The decorators every import endpoint shares: the route (POST, or the PUT spelling older plugins
 * send, which needs a handler of its own), `data:import`, `Idempotency-Key`, `?atomic`, `?dry_run`, the body
 * (see uploadBody in platform/openapi-records.ts) and the run answer.
 */
export function UploadEndpoint(method: 'POST' | 'PUT', paths: string | string[], operation: ApiOperationOptions, body: Omit<BodyOptions, 'schema'> & { schema: object }) {
  return applyDecorators(
    method === 'POST' ? Post(paths) : Put(paths),
    HttpCode(200),
    RequirePermission('data:import'),
    ApiOperation(operation),
    ApiHeader({ name: 'Idempotency-Key', required: false, description: 'A retry with the same key and body gets the first answer; another body is 422' }),
    ApiQuery({ name: 'atomic', required: false, type: Boolean, description: 'true: any record error fails the whole request' }),
    ApiQuery({ name: 'dry_run', required: false, type: Boolean, description: 'true: validate and answer as the import would (`dry_run: true`, no run_id), recording nothing' }),
    ApiBody(body as BodyOptions),
    ApiOkResponse({ description: '`{response: "ok", run_id, run_url, accepted, rejected, errors: [{index, field, code, message}], warnings?}` once durably in the event log; with `?dry_run=true` `{response: "ok", dry_run: true, accepted, rejected, errors, warnings?}`' }),
  );
}
