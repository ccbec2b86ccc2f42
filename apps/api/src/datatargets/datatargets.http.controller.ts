import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import {
  changeDatatarget,
  changeOutlet,
  controlOutlet,
  createDatatarget,
  createOutlet,
  deleteDatatarget,
  deleteOutlet,
  postMessages,
} from '../../../../libs/datatargets/src';
import { EVENT_STORE, type EventStore } from '../../../../libs/event-store/src';
import { invalidRequest, notFound } from '../../../../libs/platform/src';
import type { Runtime } from '../../../../libs/runtime/src';
import { findDatatarget, findOutlet, listDatatargets, outletLog, outletLogEntry, outletView, readMessages } from '../../../../projections';
import { awaitReadModel } from '../access/read-your-writes';
import { RequirePermission } from '../access/permissions';
import { RUNTIME } from '../platform/tokens';

const DATATARGET_FIELDS = '{id, datatarget_type, datatype?, name, description, created_at, enabled, outlets, last_message_number}';
const OUTLET_FIELDS = '{id, outlet_type, enabled, request: {url, method, headers, format, content}, is_batched, max_batch_size, min_request_interval, last_delivered_message_number, delivered_batch_count, signed, paused_reason, failing_since, next_attempt_at}';

function whole(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw invalidRequest(`${name} must be a whole number from ${min} to ${max}`);
  return n;
}

@ApiTags('datatargets')
@ApiBearerAuth()
@Controller('api/datatargets')
export class DatatargetsHttpController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(RUNTIME) private readonly runtime: Runtime,
  ) {}

  private meta(request: FastifyRequest) {
    return { actor: request.principal!.ownerId, requestId: request.id };
  }

  private async datatarget(id: string) {
    const found = await findDatatarget(this.runtime.pool, id);
    if (!found) throw notFound(`No datatarget ${id.slice(0, 64)}`);
    return found;
  }

  private async outlet(datatargetId: string, outletId: string) {
    const found = await findOutlet(this.runtime.pool, datatargetId, outletId);
    if (!found) throw notFound(`No outlet ${outletId.slice(0, 64)} on datatarget ${datatargetId.slice(0, 64)}`);
    return found;
  }

  private async settled(position: number) {
    await awaitReadModel(this.runtime, 'datatargets', position);
  }

  @Get()
  @RequirePermission('datatargets:use')
  @ApiOperation({ summary: 'The datatargets, oldest first' })
  @ApiOkResponse({ description: `\`{datatargets: [${DATATARGET_FIELDS}]}\`` })
  async list() {
    return { datatargets: await listDatatargets(this.runtime.pool) };
  }

  @Post()
  @HttpCode(200)
  @RequirePermission('datatargets:manage')
  @ApiOperation({ summary: 'Create a datatarget: `{datatarget_type: "messages", name, description?}` or `{datatarget_type: "datasync", datatype: customers|products|events|sales, name}`' })
  @ApiBody({ schema: { type: 'object', required: ['datatarget_type', 'name'], properties: { datatarget_type: { enum: ['messages', 'datasync'] }, name: { type: 'string' }, description: { type: 'string' }, datatype: { enum: ['customers', 'products', 'events', 'sales'] } } } })
  @ApiOkResponse({ description: `\`{datatarget: ${DATATARGET_FIELDS}}\`` })
  async create(@Req() request: FastifyRequest, @Body() body: unknown) {
    const { datatarget_id: id, position } = await createDatatarget(this.store, body, this.meta(request));
    await this.settled(position);
    return { datatarget: await this.datatarget(id) };
  }

  @Get(':datatarget_id')
  @RequirePermission('datatargets:use')
  @ApiOperation({ summary: 'One datatarget with its outlets' })
  @ApiOkResponse({ description: `\`{datatarget: ${DATATARGET_FIELDS}}\`` })
  async get(@Param('datatarget_id') id: string) {
    return { datatarget: await this.datatarget(id) };
  }

  @Patch(':datatarget_id')
  @RequirePermission('datatargets:manage')
  @ApiOperation({ summary: 'Change `name`, `description`, or `enabled` (false pauses every outlet of the datatarget; posting still works)' })
  @ApiOkResponse({ description: `\`{datatarget: ${DATATARGET_FIELDS}}\`` })
  async patch(@Req() request: FastifyRequest, @Param('datatarget_id') id: string, @Body() body: unknown) {
    await this.settled(await changeDatatarget(this.store, id, body, this.meta(request)));
    return { datatarget: await this.datatarget(id) };
  }

  @Delete(':datatarget_id')
  @RequirePermission('datatargets:manage')
  @ApiOperation({ summary: 'Delete a datatarget and its outlets (its events stay in the log)' })
  @ApiOkResponse({ description: '`{deleted: true, id}`' })
  async remove(@Req() request: FastifyRequest, @Param('datatarget_id') id: string) {
    await this.settled(await deleteDatatarget(this.store, id, this.meta(request)));
    return { deleted: true, id };
  }

  @Post(':datatarget_id/post')
  @HttpCode(200)
  @RequirePermission('datatargets:use')
  @ApiOperation({ summary: 'Post messages (JSON objects, at most 10,000 per request): numbered gap-free from 1 in posting order; the answer comes once they are retrievable' })
  @ApiBody({ schema: { type: 'object', required: ['messages'], properties: { messages: { type: 'array', items: { type: 'object' } } } } })
  @ApiOkResponse({ description: '`{first_message_number, messages_count}`' })
  async post(@Req() request: FastifyRequest, @Param('datatarget_id') id: string, @Body() body: unknown) {
    const target = await this.datatarget(id);
    const { first_message_number, messages_count, position } = await postMessages(this.store, id, body, { ...this.meta(request), datatargetType: target.datatarget_type });
    await this.settled(position);
    return { first_message_number, messages_count };
  }

  @Get(':datatarget_id/retrieve')
  @RequirePermission('datatargets:use')
  @ApiOperation({ summary: 'Messages after `after` (default 0) in posting order, at most `limit` (default 100, max 10,000)' })
  @ApiQuery({ name: 'after', required: false, type: Number })
  @ApiQuery({ name: 'limit', required: false, type: Number })
  @ApiOkResponse({ description: '`{last_message_number, messages}`; `{messages: []}` when there are none' })
  async retrieve(@Param('datatarget_id') id: string, @Query() query: Record<string, string>) {
    await this.datatarget(id);
    const after = whole('after', query.after, 0, 0, Number.MAX_SAFE_INTEGER);
    const limit = whole('limit', query.limit, 100, 1, 10_000);
    const rows = await readMessages(this.runtime.pool, id, after, limit);
    if (rows.length === 0) return { messages: [] };
    return { last_message_number: Number(rows[rows.length - 1].number), messages: rows.map((r) => r.message) };
  }

  @Post(':datatarget_id/outlets')
  @HttpCode(200)
  @RequirePermission('datatargets:manage')
  @ApiOperation({
    summary: 'Create a webhook outlet: `{outlet_type: "webhook", request: {url, method, headers, format: "json", content, is_batched}, max_batch_size?, min_request_interval?, secret?}`',
    description: '`{(data)}` in `request.content` is replaced by the message (or the list of messages when is_batched). With a `secret`, requests are signed the Standard Webhooks way.',
  })
  @ApiOkResponse({ description: `\`{outlet: ${OUTLET_FIELDS}}\`` })
  async createOutlet(@Req() request: FastifyRequest, @Param('datatarget_id') id: string, @Body() body: unknown) {
    await this.datatarget(id);
    const { outlet_id: outletId, position } = await createOutlet(this.store, this.runtime.accessDeps.secrets, id, body, this.meta(request));
    await this.settled(position);
    await this.settled(await this.store.headPosition());
    return { outlet: outletView(await this.outlet(id, outletId)) };
  }

  @Get(':datatarget_id/outlets')
  @RequirePermission('datatargets:use')
  @ApiOperation({ summary: 'The outlets of a datatarget' })
  @ApiOkResponse({ description: `\`{outlets: [${OUTLET_FIELDS}]}\`` })
  async listOutlets(@Param('datatarget_id') id: string) {
    return { outlets: (await this.datatarget(id)).outlets };
  }

  @Get(':datatarget_id/outlets/:outlet_id')
  @RequirePermission('datatargets:use')
  @ApiOperation({ summary: 'One outlet with its delivery state' })
  @ApiOkResponse({ description: `\`{outlet: ${OUTLET_FIELDS}}\`` })
  async getOutlet(@Param('datatarget_id') id: string, @Param('outlet_id') outletId: string) {
    return { outlet: outletView(await this.outlet(id, outletId)) };
  }

  @Patch(':datatarget_id/outlets/:outlet_id')
  @RequirePermission('datatargets:manage')
  @ApiOperation({ summary: 'Change an outlet: `request` fields, `is_batched`, `max_batch_size`, `min_request_interval`, `secret`; `enabled: false|true` pauses or resumes it' })
  @ApiOkResponse({ description: `\`{outlet: ${OUTLET_FIELDS}}\`` })
  async patchOutlet(@Req() request: FastifyRequest, @Param('datatarget_id') id: string, @Param('outlet_id') outletId: string, @Body() body: unknown) {
    const current = await this.outlet(id, outletId);
    await this.settled(await changeOutlet(this.store, this.runtime.accessDeps.secrets, current.definition, body, this.meta(request)));
    return { outlet: outletView(await this.outlet(id, outletId)) };
  }

  @Delete(':datatarget_id/outlets/:outlet_id')
  @RequirePermission('datatargets:manage')
  @ApiOperation({ summary: 'Delete an outlet (its log stays in the event log)' })
  @ApiOkResponse({ description: '`{deleted: true, id}`' })
  async deleteOutlet(@Req() request: FastifyRequest, @Param('datatarget_id') id: string, @Param('outlet_id') outletId: string) {
    const current = await this.outlet(id, outletId);
    await this.settled(await deleteOutlet(this.store, current.definition, this.meta(request)));
    return { deleted: true, id: outletId };
  }

  @Post(':datatarget_id/outlets/:outlet_id/:action')
  @HttpCode(200)
  @RequirePermission('datatargets:manage')
  @ApiOperation({
    summary: 'Operator controls: `pause`, `resume` (also after the outlet paused itself), `retry` (now, skipping the backoff), `rewind` with `{to_message_number: N}` (deliver again from message N)',
  })
  @ApiBody({ required: false, schema: { type: 'object', properties: { to_message_number: { type: 'integer' } } } })
  @ApiOkResponse({ description: `\`{outlet: ${OUTLET_FIELDS}}\`` })
  async control(@Req() request: FastifyRequest, @Param('datatarget_id') id: string, @Param('outlet_id') outletId: string, @Param('action') action: string, @Body() body: unknown) {
    if (!['pause', 'resume', 'retry', 'rewind'].includes(action)) throw notFound(`No outlet action "${action.slice(0, 30)}"; actions are pause, resume, retry, rewind`);
    await this.outlet(id, outletId);
    let to: number | undefined;
    if (action === 'rewind') {
      to = (body as { to_message_number?: unknown } | undefined)?.to_message_number as number | undefined;
      if (!Number.isSafeInteger(to) || to! < 1) throw invalidRequest('rewind needs {"to_message_number": N} with N ≥ 1');
    }
    await this.settled(await controlOutlet(this.store, outletId, action as 'pause' | 'resume' | 'retry' | 'rewind', this.meta(request), to));
    return { outlet: outletView(await this.outlet(id, outletId)) };
  }

  @Get(':datatarget_id/outlets/:outlet_id/log')
  @RequirePermission('datatargets:use')
  @ApiOperation({ summary: 'The outlet log: `limit` (default 100), `from` (an entry number), `order` ascending|descending (default descending)' })
  @ApiOkResponse({ description: '`{order, limit, total_count, next_url, entries: [{entry_number, entry_key, date, batch_number, batch_size, first_message_number | after_update, status, http_status, fail_reason, request_time_ms, http_request_available}]}`' })
  async log(@Req() request: FastifyRequest, @Param('datatarget_id') id: string, @Param('outlet_id') outletId: string, @Query() query: Record<string, string>) {
    await this.outlet(id, outletId);
    const limit = whole('limit', query.limit, 100, 1, 10_000);
    const from = query.from === undefined || query.from === '' ? undefined : whole('from', query.from, 0, 0, Number.MAX_SAFE_INTEGER);
    const order = query.order ?? 'descending';
    if (order !== 'ascending' && order !== 'descending') throw invalidRequest('order must be ascending or descending');
    const { total, entries } = await outletLog(this.runtime.pool, outletId, { limit: limit + 1, from, order });
    const page = entries.slice(0, limit);
    let next: string | null = null;
    if (entries.length > limit) {
      const url = new URL(request.url, 'http://placeholder');
      url.searchParams.set('from', String(entries[limit].entry_number));
      url.searchParams.delete('access-token');
      next = `${url.pathname}${url.search}`;
    }
    return { order, limit, total_count: total, next_url: next, entries: page };
  }

  @Get(':datatarget_id/outlets/:outlet_id/log/:entry_number')
  @RequirePermission('datatargets:use')
  @ApiOperation({ summary: 'One log entry with the raw request (secrets masked) and reply (at most 64 KiB) texts' })
  @ApiOkResponse({ description: '`{entry: {..., http_request, http_reply}}`' })
  async logEntry(@Param('datatarget_id') id: string, @Param('outlet_id') outletId: string, @Param('entry_number') entryNumber: string) {
    await this.outlet(id, outletId);
    const entry = await outletLogEntry(this.runtime.pool, outletId, whole('entry_number', entryNumber, 0, 1, Number.MAX_SAFE_INTEGER));
    if (!entry) throw notFound(`No log entry ${entryNumber.slice(0, 20)}`);
    return { entry };
  }
}
