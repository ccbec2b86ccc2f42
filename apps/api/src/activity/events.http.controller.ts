import { Body, Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CommandBus } from '@nestjs/cqrs';
import { EVENT_RECORD } from '#mds/activity';
import type { UploadAnswer } from '#mds/imports';
import { invalidRequest, notFound } from '#mds/platform';
import { EVENTS_READ_MODEL, SETTINGS_READ_MODEL, type EventsReadModel, type SettingsReadModel } from '#mds/projections';
import { RequirePermission } from '../access/permissions';
import { UploadEndpoint } from '../imports/upload-endpoint';
import { uploadBody } from '../platform/openapi-records';
import { dataPage, dateBound, nextUrl } from '../imports/paging';
import { uploadCommand } from '../imports/uploads';
import { listQuery } from '../imports/filters';

/**
 * `from`/`to` (date), `customer` (a customer's external_id: events naming any of its identifiers) and
 * equality filters on the event's fields; `type` is read as the import reads it (`basket_add` is BASKET_ADD).
 */
const EVENTS_QUERY = listQuery(EVENT_RECORD.fields, {
  parameters: ['from', 'to'],
  extra: { type: (v) => v.trim().toUpperCase(), customer: (v) => v.trim() },
});

@Controller()
export class EventsHttpController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(EVENTS_READ_MODEL) private readonly events: EventsReadModel,
    @Inject(SETTINGS_READ_MODEL) private readonly settings: SettingsReadModel,
  ) {}

  @ApiTags('imports')
  @UploadEndpoint('POST', ['api/events/upload', 'api/event/upload'], {
    summary: 'Import customer events: `{events: [...]}` or a bare JSON list (also at /api/event/upload/)',
    description:
      'Each event needs type, date and one of customer_id, phone_number, email, customer_token, plus its type\'s fields (README: events). ' +
      'Custom types from the settings are accepted. `[{id, is_deleted: true}]` deletes events by the ids retrieval shows. Same run pattern as customers.',
  }, uploadBody('events'))
  upload(@Req() request: FastifyRequest, @Body() body: unknown): Promise<UploadAnswer> {
    return this.commands.execute(uploadCommand('events', request, body));
  }

  // A second handler: stacked @Post and @Put on one method register only the outermost (POST).
  @ApiTags('imports')
  @UploadEndpoint('PUT', ['api/events/upload', 'api/event/upload'], { summary: 'Import customer events (PUT spelling; the same as POST)' }, uploadBody('events'))
  uploadPut(@Req() request: FastifyRequest, @Body() body: unknown): Promise<UploadAnswer> {
    return this.upload(request, body);
  }

  @Get('api/data/events')
  @ApiTags('retrieval')
  @RequirePermission('data:read')
  @ApiOperation({
    summary: 'Customer events in id order: `limit`, `next_url`, filters `type`, `customer_id`, `email`, `phone_number`, `customer_token`, `customer` (a customer\'s external_id: events naming any of its identifiers), `from`/`to` (date), equality on any field',
    description: 'Deleted events never appear. Each event shows its `id` (for deletion).',
  })
  @ApiOkResponse({ description: '`{events: [...], count, next_url}` (next_url null on the last page)' })
  async list(@Req() request: FastifyRequest, @Query() query: Record<string, string>) {
    const settings = await this.settings.current();
    const { timezone } = settings;
    const { limit, after, filters } = dataPage(query, EVENTS_QUERY, settings);
    const cursor = after === undefined ? undefined : Number(after);
    if (cursor !== undefined && !Number.isSafeInteger(cursor)) throw invalidRequest('after is not a cursor from next_url');
    const rows = await this.events.list({ limit, after: cursor, filters, from: dateBound('from', query.from, timezone), to: dateBound('to', query.to, timezone) });
    const events = rows.map((r) => r.event);
    const next = nextUrl(request, rows.length === limit ? String(rows[rows.length - 1].id) : null);
    return { events, count: events.length, next_url: next };
  }

  @Get('api/data/events/:id')
  @ApiTags('retrieval')
  @RequirePermission('data:read')
  @ApiOperation({ summary: 'One event by its `id` (events have no external id); 404 when there is none or it was deleted' })
  @ApiOkResponse({ description: 'The event as the list shows it, with `id` and `updated_at`' })
  async one(@Param('id') id: string) {
    if (!/^[1-9]\d{0,15}$/.test(id)) throw invalidRequest('An event id is a whole number, as the list shows it');
    const [row] = await this.events.list({ limit: 1, filters: { id } });
    if (!row) throw notFound(`No event has the id ${id}`);
    return row.event;
  }
}
