import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CommandBus } from '@nestjs/cqrs';
import {
  ChangeDatatargetCommand,
  ChangeOutletCommand,
  ControlOutletCommand,
  CreateDatatargetCommand,
  CreateOutletCommand,
  DeleteDatatargetCommand,
  DeleteOutletCommand,
  OPERATOR_ACTIONS,
  PostMessagesCommand,
  SendTestCommand,
  type OperatorAction,
  type PostedMessages,
  type SentTest,
} from '#mds/datatargets';
import { invalidRequest, notFound } from '#mds/platform';
import { DATATARGETS_READ_MODEL, outletView, type DatatargetsReadModel } from '#mds/projections';
import { ReadYourWrites } from '../access/read-your-writes';
import { RequirePermission } from '../access/permissions';
import { withParam } from '../imports/paging';
import { ChangeDatatargetRequest, CreateDatatargetRequest, OutletLogQuery, RetrieveMessagesQuery } from './datatarget.request.dto';
import { ChangeOutletRequest, ControlOutletRequest, CreateOutletRequest, TestOutletRequest } from './outlet.request.dto';
import { sentFields } from '../platform/request-validation';

const DATATARGET_FIELDS = '{id, datatarget_type, datatype?, name, description, created_at, enabled, retention_days, outlets, last_message_number}';
const OUTLET_FIELDS = '{id, outlet_type, enabled, request: {url, method, headers, format, content}, is_batched, max_batch_size, min_request_interval, last_delivered_message_number, delivered_batch_count, signed, paused_reason, failing_since, next_attempt_at}';

const ACTIONS: readonly string[] = OPERATOR_ACTIONS;

/** An outlet's fields from its request DTO, as the outlet commands take them. */
const outletInput = ({ request, ...rest }: CreateOutletRequest | ChangeOutletRequest) => ({ ...sentFields(rest), ...(request ? { request: sentFields(request) } : {}) });

@ApiTags('datatargets')
@Controller('api/datatargets')
export class DatatargetsHttpController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(DATATARGETS_READ_MODEL) private readonly datatargets: DatatargetsReadModel,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  private meta(request: FastifyRequest) {
    return { actor: request.principal!.ownerId, tokenId: request.principal!.tokenId, requestId: request.id };
  }

  private async datatarget(id: string) {
    const found = await this.datatargets.datatarget(id);
    if (!found) throw notFound(`No datatarget ${id.slice(0, 64)}`);
    return found;
  }

  private async outlet(datatargetId: string, outletId: string) {
    const found = await this.datatargets.outlet(datatargetId, outletId);
    if (!found) throw notFound(`No outlet ${outletId.slice(0, 64)} on datatarget ${datatargetId.slice(0, 64)}`);
    return found;
  }

  private async settled(position: number) {
    await this.readYourWrites.settled('datatargets', position);
  }

  @Get()
  @RequirePermission('datatargets:use')
  @ApiOperation({ summary: 'The datatargets, oldest first' })
  @ApiOkResponse({ description: `\`{datatargets: [${DATATARGET_FIELDS}], next_url: null}\` (every list carries next_url; this one is always a single page)` })
  async list() {
    return { datatargets: await this.datatargets.list(), next_url: null };
  }

  @Post()
  @HttpCode(200)
  @RequirePermission('datatargets:manage')
  @ApiOperation({ summary: 'Create a datatarget: `{datatarget_type: "messages", name, description?, retention_days?}` or `{datatarget_type: "datasync", datatype: customers|products|events|sales, name}`. retention_days: delivered messages older than that many days have their payload dropped (never one an outlet has not delivered; absent or null: kept)' })
  @ApiBody({ schema: { type: 'object', required: ['datatarget_type', 'name'], properties: { datatarget_type: { enum: ['messages', 'datasync'] }, name: { type: 'string' }, description: { type: 'string' }, datatype: { enum: ['customers', 'products', 'events', 'sales'] }, retention_days: { type: ['integer', 'null'], minimum: 0, maximum: 36500 } } } })
  @ApiOkResponse({ description: `\`{datatarget: ${DATATARGET_FIELDS}}\`` })
  async create(@Req() request: FastifyRequest, @Body() body: CreateDatatargetRequest) {
    const { datatarget_id: id, position } = await this.commands.execute(new CreateDatatargetCommand({ ...sentFields(body), datatarget_type: body.datatarget_type, name: body.name }, this.meta(request)));
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
  @ApiOperation({ summary: 'Change `name`, `description`, `enabled` (false pauses every outlet of the datatarget; posting still works) or `retention_days` (null: keep delivered messages)' })
  @ApiOkResponse({ description: `\`{datatarget: ${DATATARGET_FIELDS}}\`` })
  async patch(@Req() request: FastifyRequest, @Param('datatarget_id') id: string, @Body() body: ChangeDatatargetRequest) {
    await this.settled(await this.commands.execute(new ChangeDatatargetCommand(id, sentFields(body), this.meta(request))));
    return { datatarget: await this.datatarget(id) };
  }

  @Delete(':datatarget_id')
  @RequirePermission('datatargets:manage')
  @ApiOperation({ summary: 'Delete a datatarget and its outlets (its events stay in the log)' })
  @ApiOkResponse({ description: '`{deleted: true, id}`' })
  async remove(@Req() request: FastifyRequest, @Param('datatarget_id') id: string) {
    await this.settled(await this.commands.execute(new DeleteDatatargetCommand(id, this.meta(request))));
    return { deleted: true, id };
  }

  @Post(':datatarget_id/post')
  @HttpCode(200)
  @RequirePermission('datatargets:use')
  @ApiOperation({ summary: 'Post messages (JSON objects, at most 10,000 per request): numbered gap-free from 1 in posting order; the answer comes once they are retrievable' })
  @ApiBody({ schema: { $ref: '#/components/schemas/DatatargetMessages' } })
  @ApiOkResponse({ description: '`{first_message_number, messages_count}`' })
  async post(@Req() request: FastifyRequest, @Param('datatarget_id') id: string, @Body() body: unknown) {
    const { first_message_number, messages_count, position }: PostedMessages = await this.commands.execute(new PostMessagesCommand(id, body, this.meta(request)));
    await this.settled(position);
    return { first_message_number, messages_count };
  }

  @Get(':datatarget_id/retrieve')
  @RequirePermission('datatargets:use')
  @ApiOperation({ summary: 'Messages after `after` (default 0) in posting order, at most `limit` (default 100, max 10,000)' })
  @ApiQuery({ name: 'after', required: false, type: Number })
  @ApiQuery({ name: 'limit', required: false, type: Number })
  @ApiOkResponse({ description: '`{last_message_number, messages}`; `{messages: []}` when there are none' })
  async retrieve(@Param('datatarget_id') id: string, @Query() query: RetrieveMessagesQuery) {
    await this.datatarget(id);
    const rows = await this.datatargets.messages(id, query.after ?? 0, query.limit ?? 100);
    if (rows.length === 0) return { messages: [] };
    return { last_message_number: Number(rows[rows.length - 1].number), messages: rows.map((r) => r.message) };
  }

  @Post(':datatarget_id/outlets')
  @HttpCode(200)
  @RequirePermission('datatargets:manage')
  @ApiOperation({
    summary: 'Create a webhook outlet: `{outlet_type: "webhook", request: {url, method, headers, format: "json", content, is_batched}, max_batch_size?, min_request_interval?, secret?, start?}`',
    description:
      '`{(data)}` in `request.content` is replaced by the message (or the list of messages when is_batched). With a `secret`, requests are signed the Standard Webhooks way. ' +
      '`start`: `beginning` (default) delivers from message 1, `now` from the first message posted after the outlet is created. ' +
      'Without OUTLET_ALLOW_PRIVATE, a URL to a loopback or private address (or localhost, or a name resolving only to such) is refused.',
  })
  @ApiOkResponse({ description: `\`{outlet: ${OUTLET_FIELDS}}\`` })
  async createOutlet(@Req() request: FastifyRequest, @Param('datatarget_id') id: string, @Body() body: CreateOutletRequest) {
    const target = await this.datatarget(id);
    // The read side's last number: where `start: "now"` starts on a datasync datatarget (numbered there).
    const shown = Number(target.last_message_number ?? 0);
    const { outlet_id: outletId, position } = await this.commands.execute(new CreateOutletCommand(id, outletInput(body), this.meta(request), shown));
    await this.settled(position);
    return { outlet: outletView(await this.outlet(id, outletId)) };
  }

  @Get(':datatarget_id/outlets')
  @RequirePermission('datatargets:use')
  @ApiOperation({ summary: 'The outlets of a datatarget' })
  @ApiOkResponse({ description: `\`{outlets: [${OUTLET_FIELDS}], next_url: null}\` (a single page)` })
  async listOutlets(@Param('datatarget_id') id: string) {
    return { outlets: (await this.datatarget(id)).outlets, next_url: null };
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
  async patchOutlet(@Req() request: FastifyRequest, @Param('datatarget_id') id: string, @Param('outlet_id') outletId: string, @Body() body: ChangeOutletRequest) {
    const current = await this.outlet(id, outletId);
    await this.settled(await this.commands.execute(new ChangeOutletCommand(current.definition, outletInput(body), this.meta(request))));
    return { outlet: outletView(await this.outlet(id, outletId)) };
  }

  @Delete(':datatarget_id/outlets/:outlet_id')
  @RequirePermission('datatargets:manage')
  @ApiOperation({ summary: 'Delete an outlet (its log stays in the event log)' })
  @ApiOkResponse({ description: '`{deleted: true, id}`' })
  async deleteOutlet(@Req() request: FastifyRequest, @Param('datatarget_id') id: string, @Param('outlet_id') outletId: string) {
    const current = await this.outlet(id, outletId);
    await this.settled(await this.commands.execute(new DeleteOutletCommand(current.definition, this.meta(request))));
    return { deleted: true, id: outletId };
  }

  @Post(':datatarget_id/outlets/:outlet_id/test')
  @HttpCode(200)
  @RequirePermission('datatargets:manage')
  @ApiOperation({
    summary: 'Send a test: one sample message (`{"test": true, …}`) through the outlet\'s template, signed and with its credentials as its batches are; answers with how the receiver took it',
    description:
      'Sent at once by the API (whether the outlet is paused or not), with the destination check and timeouts of delivery. ' +
      'Logged as an entry with `test: true`, which moves neither the delivery position nor the failure count.',
  })
  @ApiBody({ required: false, schema: { type: 'object', properties: {}, additionalProperties: false } })
  @ApiOkResponse({ description: '`{entry: {entry_number, entry_key, date, batch_number: 0, batch_size: 1, status, http_status, fail_reason, request_time_ms, http_request_available, test: true}}`' })
  async testOutlet(@Req() request: FastifyRequest, @Param('datatarget_id') id: string, @Param('outlet_id') outletId: string, @Body() _body: TestOutletRequest) {
    const target = await this.datatarget(id);
    const { definition } = await this.outlet(id, outletId);
    const datatype = typeof target.datatype === 'string' ? target.datatype : null;
    const { entry, position }: SentTest = await this.commands.execute(new SendTestCommand(definition, datatype, this.meta(request)));
    await this.settled(position);
    return { entry };
  }

  @Post(':datatarget_id/outlets/:outlet_id/:action')
  @HttpCode(200)
  @RequirePermission('datatargets:manage')
  @ApiOperation({
    summary: 'Operator controls: `pause`, `resume` (also after the outlet paused itself), `retry` (now, skipping the backoff), `rewind` with `{to_message_number: N}` (deliver again from message N)',
  })
  @ApiParam({ name: 'action', enum: OPERATOR_ACTIONS, description: 'pause, resume, retry, or rewind (which takes `{to_message_number}`)' })
  @ApiBody({ required: false, schema: { type: 'object', properties: { to_message_number: { type: 'integer', minimum: 1, description: 'rewind only: deliver again from this message' } }, example: { to_message_number: 1 } } })
  @ApiOkResponse({ description: `\`{outlet: ${OUTLET_FIELDS}}\`` })
  async control(@Req() request: FastifyRequest, @Param('datatarget_id') id: string, @Param('outlet_id') outletId: string, @Param('action') action: string, @Body() body: ControlOutletRequest) {
    if (!ACTIONS.includes(action)) throw notFound(`No outlet action "${action.slice(0, 30)}"; actions are ${ACTIONS.join(', ')}`);
    await this.outlet(id, outletId);
    const to = action === 'rewind' ? body.to_message_number : undefined;
    if (action === 'rewind' && to === undefined) throw invalidRequest('rewind needs {"to_message_number": N} with N ≥ 1');
    await this.settled(await this.commands.execute(new ControlOutletCommand(outletId, action as OperatorAction, this.meta(request), to)));
    return { outlet: outletView(await this.outlet(id, outletId)) };
  }

  @Get(':datatarget_id/outlets/:outlet_id/log')
  @RequirePermission('datatargets:use')
  @ApiOperation({ summary: 'The outlet log: `limit` (default 100), `from` (an entry number), `order` ascending|descending (default descending)' })
  @ApiOkResponse({ description: '`{order, limit, total_count, next_url, entries: [{entry_number, entry_key, date, batch_number, batch_size, first_message_number | after_update, status, http_status, fail_reason, request_time_ms, http_request_available}]}`' })
  async log(@Req() request: FastifyRequest, @Param('datatarget_id') id: string, @Param('outlet_id') outletId: string, @Query() query: OutletLogQuery) {
    await this.outlet(id, outletId);
    const limit = query.limit ?? 100;
    const { from } = query;
    const order = query.order ?? 'descending';
    const { total, entries } = await this.datatargets.outletLog(outletId, { limit: limit + 1, from, order });
    const page = entries.slice(0, limit);
    const next = entries.length > limit ? withParam(request, 'from', String(entries[limit].entry_number)) : null;
    return { order, limit, total_count: total, next_url: next, entries: page };
  }

  @Get(':datatarget_id/outlets/:outlet_id/log/:entry_number')
  @RequirePermission('datatargets:use')
  @ApiOperation({ summary: 'One log entry with the raw request (secrets masked) and reply (at most 64 KiB) texts' })
  @ApiOkResponse({ description: '`{entry: {..., http_request, http_reply}}`' })
  async logEntry(@Param('datatarget_id') id: string, @Param('outlet_id') outletId: string, @Param('entry_number') entryNumber: string) {
    await this.outlet(id, outletId);
    const number = /^\d{1,15}$/.test(entryNumber) ? Number(entryNumber) : 0;
    if (number < 1) throw invalidRequest('entry_number must be a whole number from 1');
    const entry = await this.datatargets.outletLogEntry(id, outletId, number);
    if (!entry) throw notFound(`No log entry ${entryNumber.slice(0, 20)}`);
    return { entry };
  }
}
