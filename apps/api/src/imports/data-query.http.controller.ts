import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { EVENT_STORE, type EventStore } from '../../../../libs/event-store/src';
import { runDataQuery, validateDataQuery, type DataQueryAnswer } from '../../../../libs/imports/src';
import { invalidRequest } from '../../../../libs/platform/src';
import type { Runtime } from '../../../../libs/runtime/src';
import { normalizeSaleState } from '../../../../libs/sales/src';
import { countMatches, DATA_QUERY_TABLES } from '../../../../projections';
import { RequirePermission } from '../access/permissions';
import { RUNTIME } from '../platform/tokens';

@ApiTags('imports')
@ApiBearerAuth()
@Controller('api/data/query')
export class DataQueryHttpController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(RUNTIME) private readonly runtime: Runtime,
  ) {}

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
  async query(@Req() request: FastifyRequest, @Body() body: unknown): Promise<DataQueryAnswer> {
    const query = validateDataQuery(body, (datatype, key, value) => {
      if (datatype !== 'sales' || key !== 'sale_state') return value;
      if (typeof value !== 'string' || value.trim() === '') throw invalidRequest('update: sale_state must be a sale state such as COMPLETE or CANCELLED');
      return normalizeSaleState(value).state;
    });
    const key = request.headers['idempotency-key'];
    if (Array.isArray(key)) throw invalidRequest('send one Idempotency-Key');
    const { answer } = await runDataQuery(this.store, {
      query,
      countMatches: (q) => countMatches(this.runtime.pool, q.match, DATA_QUERY_TABLES[q.datatype]),
      idempotencyKey: key?.trim() || undefined,
      caller: request.principal!.ownerId,
      requestId: request.id,
    });
    return answer;
  }
}
