import { Body, Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CommandBus } from '@nestjs/cqrs';
import { CUSTOMER_FIELDS, RecordCustomerExportCommand } from '#mds/customers';
import type { UploadAnswer } from '#mds/imports';
import { invalidRequest, notFound } from '#mds/platform';
import {
  CUSTOMERS_READ_MODEL,
  customerExportDocument,
  customerExportLines,
  SETTINGS_READ_MODEL,
  type CustomerChange,
  type CustomersReadModel,
  type SettingsReadModel,
} from '#mds/projections';
import { RequirePermission } from '../access/permissions';
import { UploadEndpoint } from '../imports/upload-endpoint';
import { uploadBody } from '../platform/openapi-records';
import { uploadCommand } from '../imports/uploads';
import { dataPage, dateBound, nextUrl, withParam } from '../imports/paging';
import { CustomerHistoryQuery } from './customer-history.request.dto';
import { CustomerConsentQuery, CustomerExportQuery } from './customer-data.request.dto';
import { listQuery } from '../imports/filters';

/** `?updated_since=` and equality filters on the customer's fields (is_deleted, is_forgotten and consent_source are not shown as fields). */
const CUSTOMERS_QUERY = listQuery(CUSTOMER_FIELDS, { parameters: ['updated_since'], omit: ['is_deleted', 'is_forgotten', 'consent_source'] });

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
  upload(@Req() request: FastifyRequest, @Body() body: unknown): Promise<UploadAnswer> {
    return this.commands.execute(uploadCommand('customers', request, body));
  }

  // A second handler: stacked @Post and @Put on one method register only the outermost (POST).
  @ApiTags('imports')
  @UploadEndpoint('PUT', ['api/customers/upload', 'api/customer/upload'], { summary: 'Import customers (PUT spelling; the same as POST)' }, uploadBody('customers'))
  uploadPut(@Req() request: FastifyRequest, @Body() body: unknown): Promise<UploadAnswer> {
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

  @Get('api/data/customers/:external_id/consent')
  @ApiTags('retrieval')
  @RequirePermission('data:read')
  @ApiOperation({
    summary: "One customer's consent history, oldest first: `{consent: [{position, at, run_id, type, event_type?, consent_source, fields}], count, next_url}`",
    description:
      'Each change of a permission (`can_email`, `can_sms`, `can_post`, `can_push`, `can_profile`) or of `mailing_lists`: by an import, a subscription event (`event_type`) or a bulk update, ' +
      'with `fields: {<field>: {before, after}}` (null: the customer had none), its log time, its run and the `consent_source` the record named (null when none). ' +
      '`limit` (100, at most 1,000) and `from` page it; follow `next_url` (null on the last page). 404 when no customer has the external id (a forgotten customer has none).',
  })
  @ApiOkResponse({ description: '`{consent, count, next_url}`' })
  async consent(@Req() request: FastifyRequest, @Param('external_id') externalId: string, @Query() query: CustomerConsentQuery): Promise<Record<string, unknown>> {
    const from = query.from ?? 0;
    const limit = query.limit ?? 100;
    const consent = await this.customers.consent(externalId, { from, limit });
    if (!consent) throw notFound(`No customer has the external_id ${JSON.stringify(externalId.slice(0, 100))}`);
    const next = from + limit < consent.total ? withParam(request, 'from', String(from + limit)) : null;
    return { consent: consent.changes, count: consent.changes.length, next_url: next };
  }

  @Get('api/data/customers/:external_id/export')
  @ApiTags('retrieval')
  @RequirePermission('audit:read')
  @ApiOperation({
    summary: "Everything the service holds of one customer, as one JSON document (auditors, admins); recorded in the log as an access",
    description:
      '`{customer_id, external_id, exported_at, customer: {record, changes}, consent, events, sales, campaign_events, messages, count}`: the customer as retrieval shows it with every change that made it, ' +
      'its consent history, and its events, sales, campaign events and datatarget messages, each `{record, run: {run_id, at}}` (messages: `{datatarget_id, message_number, message, run}`). ' +
      'Every export appends `CustomerDataExported` `{customer_id, format}` (the numeric id only) with who asked. At most 10,000 records as JSON (406 `export_too_large` beyond); ' +
      '`Accept: application/x-ndjson` streams it as lines of any size instead, ending in `{"section": "end", "count"}`. 404 when no customer has the external id (a forgotten customer has none).',
  })
  @ApiOkResponse({ description: 'The export (JSON, or NDJSON with `Accept: application/x-ndjson`)' })
  async export(
    @Req() request: FastifyRequest,
    @Param('external_id') externalId: string,
    @Query() _query: CustomerExportQuery,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const opened = await this.customers.openExport(externalId);
    if (!opened) throw notFound(`No customer has the external_id ${JSON.stringify(externalId.slice(0, 100))}`);
    const principal = request.principal!;
    const record = (format: 'json' | 'ndjson') => this.commands.execute(new RecordCustomerExportCommand(opened.customerId, format, principal.ownerId, principal.tokenId, request.id));
    if (!acceptsNdjson(request.headers.accept)) {
      // Built whole before the access is recorded: an export over the cap discloses nothing and records nothing.
      const document = await customerExportDocument(opened);
      await record('json');
      return void reply.type('application/json; charset=utf-8').send(JSON.stringify(document));
    }
    // Recorded before the first line leaves: no record, no export.
    await record('ndjson');
    reply.header('content-type', 'application/x-ndjson; charset=utf-8');
    return void reply.send(Readable.from(customerExportLines(opened), { objectMode: false }));
  }
}

/** Whether an Accept header asks for NDJSON (`application/x-ndjson` or `application/ndjson`, not with q=0). */
export function acceptsNdjson(header: string | string[] | undefined): boolean {
  return [header ?? ''].flat().join(',').split(',').some((part) => {
    const [type, ...params] = part.split(';').map((x) => x.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return (type === 'application/x-ndjson' || type === 'application/ndjson') && (q === undefined || Number(q.slice(2)) > 0);
  });
}
