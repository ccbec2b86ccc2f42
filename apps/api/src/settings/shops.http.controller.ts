import { Body, Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CommandBus } from '@nestjs/cqrs';
import type { UploadAnswer } from '#mds/imports';
import { notFound } from '#mds/platform';
import { SHOP_FIELDS } from '#mds/settings';
import { SETTINGS_READ_MODEL, SHOPS_READ_MODEL, type SettingsReadModel, type ShopsReadModel } from '#mds/projections';
import { RequirePermission } from '../access/permissions';
import { UploadEndpoint } from '../imports/upload-endpoint';
import { uploadBody } from '../platform/openapi-records';
import { uploadCommand } from '../imports/uploads';
import { dataPage, nextUrl } from '../imports/paging';
import { includeDeleted, listQuery } from '../imports/filters';

/** Equality filters on the shop's fields; `include_deleted` shows ended shops too. */
const SHOPS_QUERY = listQuery(SHOP_FIELDS, { parameters: ['include_deleted'], omit: ['is_deleted'] });

@Controller()
export class ShopsHttpController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(SHOPS_READ_MODEL) private readonly shops: ShopsReadModel,
    @Inject(SETTINGS_READ_MODEL) private readonly settings: SettingsReadModel,
  ) {}

  @ApiTags('imports')
  @UploadEndpoint('POST', 'api/shops/upload', { summary: 'Import shops (store views): `{shops: [{external_id, name, ...}]}`. Partial acceptance; `?atomic=true`; `Idempotency-Key`.' }, uploadBody('shops'))
  upload(@Req() request: FastifyRequest, @Body() body: unknown): Promise<UploadAnswer> {
    return this.commands.execute(uploadCommand('shops', request, body));
  }

  @Get('api/data/shops')
  @ApiTags('retrieval')
  @RequirePermission('data:read')
  @ApiOperation({
    summary: 'Shops in external_id order: `limit` (default 100, max 10,000), cursor paging with `next_url`, equality filters on any field',
    description: 'Shops imported with `is_deleted: true` are left out; `?include_deleted=true` lists them too, with `is_deleted: true`.',
  })
  @ApiOkResponse({ description: '`{shops: [...], count, next_url}` (count: shops in this page; next_url null on the last page)' })
  async list(@Req() request: FastifyRequest, @Query() query: Record<string, string>) {
    const { limit, after, filters } = dataPage(query, SHOPS_QUERY, await this.settings.current());
    const shops = await this.shops.list({ limit, after, filters, includeDeleted: includeDeleted(query) });
    return { shops, count: shops.length, next_url: nextUrl(request, shops.length === limit ? String(shops[shops.length - 1].external_id) : null) };
  }

  @Get('api/data/shops/:external_id')
  @ApiTags('retrieval')
  @RequirePermission('data:read')
  @ApiOperation({ summary: 'One shop by its external_id; 404 when there is none or it was deleted (unless `?include_deleted=true`)' })
  @ApiQuery({ name: 'include_deleted', required: false, type: Boolean, description: 'true: a shop imported with is_deleted: true is shown too' })
  @ApiOkResponse({ description: 'The shop: its fields with `id` and `updated_at`' })
  async one(@Req() request: FastifyRequest, @Param('external_id') externalId: string) {
    const [shop] = await this.shops.list({ limit: 1, filters: { external_id: externalId }, includeDeleted: includeDeleted(request.query as Record<string, unknown>) });
    if (!shop) throw notFound(`No shop has the external_id ${JSON.stringify(externalId.slice(0, 100))}`);
    return shop;
  }
}
