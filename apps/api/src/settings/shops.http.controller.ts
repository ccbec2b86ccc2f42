import { Body, Controller, Get, Inject, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { EVENT_STORE, type EventStore } from '../../../../libs/event-store/src';
import { recordsOf, type ImportAnswer } from '../../../../libs/imports/src';
import type { Runtime } from '../../../../libs/runtime/src';
import { shopImport } from '../../../../libs/settings/src';
import { listShops } from '../../../../projections';
import { RequirePermission } from '../access/permissions';
import { UploadEndpoint } from '../imports/upload-endpoint';
import { RUNTIME } from '../platform/tokens';
import { handleImport } from '../imports/import-answer';
import { dataPage, nextUrl } from '../imports/paging';

@ApiTags('shops')
@ApiBearerAuth()
@Controller()
export class ShopsHttpController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(RUNTIME) private readonly runtime: Runtime,
  ) {}

  @UploadEndpoint('POST', 'api/shops/upload', { summary: 'Import shops (store views): `{shops: [{external_id, name, ...}]}`. Partial acceptance; `?atomic=true`; `Idempotency-Key`.' }, { type: 'object', properties: { shops: { type: 'array', items: { type: 'object', properties: { external_id: { type: 'string' }, name: { type: 'string' } } } } } })
  upload(@Req() request: FastifyRequest, @Body() body: unknown): Promise<ImportAnswer> {
    return handleImport(this.store, shopImport, request, recordsOf(body, 'shops'));
  }

  @Get('api/data/shops')
  @RequirePermission('data:read')
  @ApiOperation({ summary: 'Shops in external_id order: `limit` (default 100, max 10,000), cursor paging with `next_url`, equality filters on any field' })
  @ApiOkResponse({ description: '`{shops: [...], count, next_url}` (count: shops in this page; next_url absent on the last page)' })
  async list(@Req() request: FastifyRequest, @Query() query: Record<string, string>) {
    const { limit, after, filters } = dataPage(query, ['limit', 'after', 'access-token']);
    const shops = await listShops(this.runtime.pool, { limit, after, filters });
    return { shops, count: shops.length, ...(shops.length === limit ? { next_url: nextUrl(request, String(shops[shops.length - 1].external_id)) } : {}) };
  }
}
