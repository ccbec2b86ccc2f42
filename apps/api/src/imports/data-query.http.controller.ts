import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { RunDataQueryCommand, type DataQueryAnswer } from '#mds/imports';
import { invalidRequest } from '#mds/platform';
import { RequirePermission } from '../access/permissions';

@ApiTags('imports')
@Controller('api/data/query')
export class DataQueryHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(200)
  @RequirePermission('data:import')
  @ApiOperation({
    summary: 'Bulk update: `{datatype, match, update}` for customers, products, events or sales',
    description:
      'match: `field: value` (a list: one of), `field.in: [...]`, `field.exists: true|false`, all of them must hold. update: fields to set ("" removes one), or `is_deleted: true` ' +
      '(events: deletion). Identities cannot be changed. Appended as one event and applied by the read model in log order; `matched` is counted when accepted. ' +
      'GET /api/runs/{run_id}/ says when it is applied. `Idempotency-Key`: a retry gets the first answer.',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false })
  @ApiBody({ schema: { type: 'object', required: ['datatype', 'match', 'update'], properties: { datatype: { enum: ['customers', 'products', 'events', 'sales'] }, match: { type: 'object' }, update: { type: 'object' } } } })
  @ApiOkResponse({ description: '`{run_id, matched}`' })
  query(@Req() request: FastifyRequest, @Body() body: unknown): Promise<DataQueryAnswer> {
    const key = request.headers['idempotency-key'];
    if (Array.isArray(key)) throw invalidRequest('send one Idempotency-Key');
    return this.commands.execute(new RunDataQueryCommand(body, request.principal!.ownerId, key?.trim() || undefined, request.id, request.principal!.tokenId));
  }
}
