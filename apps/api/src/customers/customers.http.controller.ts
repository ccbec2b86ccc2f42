import { Body, Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CommandBus } from '@nestjs/cqrs';
import type { ImportAnswer } from '#mds/imports';
import { invalidRequest } from '#mds/platform';
import { RUNTIME, type Runtime } from '#mds/runtime';
import { currentSettings, listCustomers } from '#mds/projections';
import { RequirePermission } from '../access/permissions';
import { UploadEndpoint } from '../imports/upload-endpoint';
import { uploadCommand } from '../imports/uploads';
import { dataPage, dateBound, nextUrl } from '../imports/paging';

@ApiTags('customers')
@ApiBearerAuth()
@Controller()
export class CustomersHttpController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(RUNTIME) private readonly runtime: Runtime,
  ) {}

  @UploadEndpoint('POST', ['api/customers/upload', 'api/customer/upload'], {
    summary: 'Import customers: `{customers: [...]}` (also at /api/customer/upload/)',
    description:
      'Records that cannot be imported are listed in `errors` ({index, field, code, message}) and left out; the rest are imported. ' +
      'No valid record → 400. `?atomic=true`: any record error fails the request. `Idempotency-Key`: a retry gets the first answer. ' +
      'The answer comes once the records are durably in the event log; GET /api/runs/{run_id}/ says when they are readable.',
  }, { type: 'object', properties: { customers: { type: 'array', items: { type: 'object' } } } })
  upload(@Req() request: FastifyRequest, @Body() body: unknown): Promise<ImportAnswer> {
    return this.commands.execute(uploadCommand('customers', request, body));
  }

  // A second handler: stacked @Post and @Put on one method register only the outermost (POST).
  @UploadEndpoint('PUT', ['api/customers/upload', 'api/customer/upload'], { summary: 'Import customers (PUT spelling; the same as POST)' })
  uploadPut(@Req() request: FastifyRequest, @Body() body: unknown): Promise<ImportAnswer> {
    return this.upload(request, body);
  }

  @Get('api/data/customers')
  @RequirePermission('data:read')
  @ApiOperation({
    summary: 'Customers in a stable order: `limit` (default 100, max 10,000), `next_url` cursor paging, equality filters on any field (`?tags=vip`, `?ACME__tier=gold`), `updated_since`',
    description: 'Deleted customers never appear; forgotten ones appear as `{is_forgotten: true}`. `count` is the number of customers in this page.',
  })
  @ApiOkResponse({ description: '`{customers: [...], count, next_url}` (next_url absent on the last page)' })
  async list(@Req() request: FastifyRequest, @Query() query: Record<string, string>, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const { limit, after, filters } = dataPage(query, ['limit', 'after', 'access-token', 'updated_since']);
    const updatedSince = query.updated_since ? dateBound('updated_since', query.updated_since, (await currentSettings(this.runtime)).timezone) : undefined;
    const cursor = after === undefined ? undefined : Number(after);
    if (cursor !== undefined && !Number.isSafeInteger(cursor)) throw invalidRequest('after is not a cursor from next_url');
    const page = await listCustomers(this.runtime.pool, { limit, after: cursor, filters, updatedSince });
    const next = page.count === limit && page.lastId !== null ? nextUrl(request, String(page.lastId)) : undefined;
    // The customers arrive as JSON text from PostgreSQL; the envelope is written around them.
    reply.type('application/json; charset=utf-8');
    return `{"customers":[${page.json}],"count":${page.count}${next ? `,"next_url":${JSON.stringify(next)}` : ''}}`;
  }
}
