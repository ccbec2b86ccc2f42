import { Body, Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CommandBus } from '@nestjs/cqrs';
import { PRODUCT_FIELDS } from '#mds/catalog';
import type { UploadAnswer } from '#mds/imports';
import { invalidRequest, notFound } from '#mds/platform';
import { includeDeleted } from '../imports/filters';
import { PRODUCTS_READ_MODEL, SETTINGS_READ_MODEL, type ProductsReadModel, type SettingsReadModel } from '#mds/projections';
import { RequirePermission } from '../access/permissions';
import { UploadEndpoint } from '../imports/upload-endpoint';
import { uploadBody } from '../platform/openapi-records';
import { uploadCommand } from '../imports/uploads';
import { dataPage, nextUrl } from '../imports/paging';
import { listQuery } from '../imports/filters';

/** Equality filters on the product's fields (lists: contains); `include_deleted` shows ended rows too. */
const PRODUCTS_QUERY = listQuery(PRODUCT_FIELDS, { parameters: ['include_deleted'], omit: ['is_deleted'] });

@Controller()
export class ProductsHttpController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(PRODUCTS_READ_MODEL) private readonly products: ProductsReadModel,
    @Inject(SETTINGS_READ_MODEL) private readonly settings: SettingsReadModel,
  ) {}

  @ApiTags('imports')
  @UploadEndpoint('POST', ['api/products/upload', 'api/product/upload'], {
    summary: 'Import products: `{products: [...]}` (also at /api/product/upload/). Same run pattern as customers.',
    description: 'Prices in cents; a row with `language` is that language variant of the product; rows of one product apply in order.',
  }, uploadBody('products'))
  upload(@Req() request: FastifyRequest, @Body() body: unknown): Promise<UploadAnswer> {
    return this.commands.execute(uploadCommand('products', request, body));
  }

  // A second handler: stacked @Post and @Put on one method register only the outermost (POST).
  @ApiTags('imports')
  @UploadEndpoint('PUT', ['api/products/upload', 'api/product/upload'], { summary: 'Import products (PUT spelling; the same as POST)' }, uploadBody('products'))
  uploadPut(@Req() request: FastifyRequest, @Body() body: unknown): Promise<UploadAnswer> {
    return this.upload(request, body);
  }

  @Get('api/data/products')
  @ApiTags('retrieval')
  @RequirePermission('data:read')
  @ApiOperation({
    summary: 'Product rows (one per product and language) in external_id order: `limit`, `next_url`, equality filters (lists: contains)',
    description: 'Rows imported with `is_deleted: true` are left out; `?include_deleted=true` lists them too, with `is_deleted: true`.',
  })
  @ApiOkResponse({ description: '`{products: [...], count, next_url}` (next_url null on the last page)' })
  async list(@Req() request: FastifyRequest, @Query() query: Record<string, string>) {
    const { limit, after, filters } = dataPage(query, PRODUCTS_QUERY, await this.settings.current());
    let cursor: [string, string] | undefined;
    if (after !== undefined) {
      try {
        cursor = JSON.parse(after) as [string, string];
        if (!Array.isArray(cursor) || cursor.length !== 2 || !cursor.every((c) => typeof c === 'string')) throw new Error();
      } catch {
        throw invalidRequest('after is not a cursor from next_url');
      }
    }
    const rows = await this.products.list({ limit, after: cursor, filters, includeDeleted: includeDeleted(query) });
    const products = rows.map((r) => r.product);
    const next = nextUrl(request, rows.length === limit ? JSON.stringify(rows[rows.length - 1].key) : null);
    return { products, count: products.length, next_url: next };
  }

  @Get('api/data/products/:external_id')
  @ApiTags('retrieval')
  @RequirePermission('data:read')
  @ApiOperation({ summary: 'One product by its external_id: the row without a language, or `?language=fi` for that language\'s row; 404 when there is none or it was deleted (unless `?include_deleted=true`)' })
  @ApiQuery({ name: 'language', required: false, type: String, description: "The language row's code (default: the row without a language)" })
  @ApiQuery({ name: 'include_deleted', required: false, type: Boolean, description: 'true: a row imported with is_deleted: true is shown too' })
  @ApiOkResponse({ description: 'The product row: its fields with `id` and `updated_at`' })
  async one(@Req() request: FastifyRequest, @Param('external_id') externalId: string) {
    const language = (request.query as Record<string, unknown>).language ?? '';
    if (typeof language !== 'string') throw invalidRequest('language must be given once');
    const [row] = await this.products.list({ limit: 1, filters: { external_id: externalId, language }, includeDeleted: includeDeleted(request.query as Record<string, unknown>) });
    if (!row) throw notFound(`No product has the external_id ${JSON.stringify(externalId.slice(0, 100))}${language ? ` in language ${JSON.stringify(language.slice(0, 20))}` : ''}`);
    return row.product;
  }
}
