import { Body, Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CommandBus } from '@nestjs/cqrs';
import { CUSTOMER_FIELDS } from '#mds/customers';
import type { ImportAnswer } from '#mds/imports';
import { invalidRequest, notFound } from '#mds/platform';
import { CUSTOMERS_READ_MODEL, SETTINGS_READ_MODEL, type CustomerChange, type CustomersReadModel, type SettingsReadModel } from '#mds/projections';
import { RequirePermission } from '../access/permissions';
import { UploadEndpoint } from '../imports/upload-endpoint';
import { uploadBody } from '../platform/openapi-records';
import { uploadCommand } from '../imports/uploads';
import { dataPage, dateBound, nextUrl, withParam } from '../imports/paging';
import { CustomerHistoryQuery } from './customer-history.request.dto';
import { listQuery } from '../imports/filters';

/** `?updated_since=` and equality filters on the customer's fields (is_deleted and is_forgotten are not shown as fields). */
const CUSTOMERS_QUERY = listQuery(CUSTOMER_FIELDS, { parameters: ['updated_since'], omit: ['is_deleted', 'is_forgotten'] });

@Controller()
export class CustomersHttpController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(CUSTOMERS_READ_MODEL) private readonly customers: CustomersReadModel,
    @Inject(SETTINGS_READ_MODEL) private readonly settings: SettingsReadModel,
  ) {}

  @ApiTags('imports')
  @UploadEndpoint('POST', ['api/customers/upload', 'api/customer/upload'], {
    summary: 'Import customers: `{customers: [...]}` (also at /api/customer/upload/)',
    description:
      'Records that cannot be imported are listed in `errors` ({index, field, code, message}) and left out; the rest are imported. ' +
      'No valid record → 400. `?atomic=true`: any record error fails the request. `Idempotency-Key`: a retry gets the first answer. ' +
      'The answer comes once the records are durably in the event log; GET /api/runs/{run_id}/ says when they are readable.',
  }, uploadBody('customers'))
  upload(@Req() request: FastifyRequest, @Body() body: unknown): Promise<ImportAnswer> {
    return this.commands.execute(uploadCommand('customers', request, body));
  }

  // A second handler: stacked @Post and @Put on one method register only the outermost (POST).
  @ApiTags('imports')
  @UploadEndpoint('PUT', ['api/customers/upload', 'api/customer/upload'], { summary: 'Import customers (PUT spelling; the same as POST)' }, uploadBody('customers'))
  uploadPut(@Req() request: FastifyRequest, @Body() body: unknown): Promise<ImportAnswer> {
    return this.upload(request, body);
  }

  @Get('api/data/customers')
  @ApiTags('retrieval')
  @RequirePermission('data:read')
  @ApiOperation({
    summary: 'Customers in a stable order: `limit` (default 100, max 10,000), `next_url` cursor paging, equality filters on any field (`?tags=vip`, `?ACME__tier=gold`), `updated_since`',
    description: 'Deleted customers never appear; forgotten ones appear as `{is_forgotten: true}`. `count` is the number of customers in this page.',
  })
  @ApiOkResponse({ description: '`{customers: [...], count, next_url}` (next_url null on the last page)' })
  async list(@Req() request: FastifyRequest, @Query() query: Record<string, string>, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const settings = await this.settings.current();
    const { limit, after, filters } = dataPage(query, CUSTOMERS_QUERY, settings);
    const updatedSince = query.updated_since ? dateBound('updated_since', query.updated_since, settings.timezone) : undefined;
    const cursor = after === undefined ? undefined : Number(after);
    if (cursor !== undefined && !Number.isSafeInteger(cursor)) throw invalidRequest('after is not a cursor from next_url');
    const page = await this.customers.list({ limit, after: cursor, filters, updatedSince });
    const next = nextUrl(request, page.count === limit && page.lastId !== null ? String(page.lastId) : null);
    // The customers arrive as JSON text from PostgreSQL; the envelope is written around them.
    reply.type('application/json; charset=utf-8');
    return `{"customers":[${page.json}],"count":${page.count},"next_url":${JSON.stringify(next)}}`;
  }

  @Get('api/data/customers/:external_id')
  @ApiTags('retrieval')
  @RequirePermission('data:read')
  @ApiOperation({ summary: 'One customer by its external_id, as the list shows it; 404 when no live customer has it' })
  @ApiOkResponse({ description: 'The customer: its fields with `id` and `updated_at`' })
  async one(@Param('external_id') externalId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const page = await this.customers.list({ limit: 1, filters: { external_id: externalId } });
    if (page.count === 0) throw notFound(`No customer has the external_id ${JSON.stringify(externalId.slice(0, 100))}`);
    reply.type('application/json; charset=utf-8');
    return page.json;
  }

  @Get('api/data/customers/:external_id/history')
  @ApiTags('retrieval')
  @RequirePermission('audit:read')
  @ApiOperation({
    summary: "One customer's changes in log order (auditors, admins): `{changes: [{position, at, actor, run_id, type, change, state_after}], count, next_url}`",
    description:
      '`type`: import, subscription (a MAIL_/SMS_ subscription event), bulk_update (POST /api/data/query/), deletion or forgetting; `change` is the record or update as sent, ' +
      '`state_after` the customer after it as retrieval shows customers. `?as_of=<time>` adds `{customer, as_of}`: the customer as it was then (null before its first change), ' +
      'and lists only the changes up to then. `limit` (100, at most 1,000) and `from` page the changes; follow `next_url` (null on the last page). ' +
      '404 when no customer has the external id (a forgotten customer has none).',
  })
  @ApiOkResponse({ description: '`{changes, count, next_url}`, with `customer` and `as_of` when `as_of` was given' })
  async history(@Req() request: FastifyRequest, @Param('external_id') externalId: string, @Query() query: CustomerHistoryQuery): Promise<Record<string, unknown>> {
    const asOf = query.as_of === undefined ? undefined : dateBound('as_of', query.as_of, (await this.settings.current()).timezone);
    const from = query.from ?? 0;
    const limit = query.limit ?? 100;
    const history = await this.customers.history(externalId, { asOf, from, limit });
    if (!history) throw notFound(`No customer has the external_id ${JSON.stringify(externalId)}`);
    const next = from + limit < history.total ? withParam(request, 'from', String(from + limit)) : null;
    const changes: CustomerChange[] = history.changes;
    return { ...(asOf === undefined ? {} : { customer: history.customer, as_of: asOf }), changes, count: changes.length, next_url: next };
  }
}
