import { Body, Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CommandBus } from '@nestjs/cqrs';
import type { UploadAnswer } from '#mds/imports';
import { notFound } from '#mds/platform';
import { normalizeSaleState, SALE_FIELDS } from '#mds/sales';
import { SALES_READ_MODEL, SETTINGS_READ_MODEL, type SalesReadModel, type SettingsReadModel } from '#mds/projections';
import { RequirePermission } from '../access/permissions';
import { UploadEndpoint } from '../imports/upload-endpoint';
import { uploadBody } from '../platform/openapi-records';
import { dataPage, dateBound, nextUrl } from '../imports/paging';
import { uploadCommand } from '../imports/uploads';
import { listQuery } from '../imports/filters';

/**
 * `from`/`to` (sale_date) and equality filters on the transaction's fields (a row's are not filters);
 * `sale_state` is read as the import reads it, plugin spellings included (`wc-completed` is COMPLETE).
 */
const SALES_QUERY = listQuery(SALE_FIELDS, {
  parameters: ['from', 'to'],
  omit: Object.keys(SALE_FIELDS).filter((name) => SALE_FIELDS[name].level === 'row'),
  // `tags` is the transaction's tags (as `sale_tags`), as it was before rows had tags of their own.
  extra: { sale_state: (v) => normalizeSaleState(v).state, sale_currency: (v) => v.trim().toUpperCase(), tags: (v) => v },
});

@Controller()
export class SalesHttpController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(SALES_READ_MODEL) private readonly sales: SalesReadModel,
    @Inject(SETTINGS_READ_MODEL) private readonly settings: SettingsReadModel,
  ) {}

  @ApiTags('imports')
  @UploadEndpoint('POST', ['api/sales/upload', 'api/sale/upload'], {
    summary: 'Import sale rows: `{sales: [...]}` (also at /api/sale/upload/). Rows combine into transactions by sale_external_id.',
    description:
      'Transaction-level fields apply whichever row carries them; a transaction needs sale_date and a customer identifier on some row (or from an earlier import). ' +
      'Re-importing a transaction replaces its rows. Unknown sale states are kept and listed in `warnings`. README: sales.',
  }, uploadBody('sales'))
  upload(@Req() request: FastifyRequest, @Body() body: unknown): Promise<UploadAnswer> {
    return this.commands.execute(uploadCommand('sales', request, body));
  }

  // A second handler: stacked @Post and @Put on one method register only the outermost (POST).
  @ApiTags('imports')
  @UploadEndpoint('PUT', ['api/sales/upload', 'api/sale/upload'], { summary: 'Import sale rows (PUT spelling; the same as POST)' }, uploadBody('sales'))
  uploadPut(@Req() request: FastifyRequest, @Body() body: unknown): Promise<UploadAnswer> {
    return this.upload(request, body);
  }

  @Get('api/data/sales')
  @ApiTags('retrieval')
  @RequirePermission('data:read')
  @ApiOperation({
    summary: 'Sale transactions with their rows (`products`), `sale_total` and `sale_state`, in sale_external_id order: `limit`, `next_url`, filters `sale_state`, `sale_customer_id`, `sale_email`, `from`/`to` (sale_date), equality on any transaction field',
  })
  @ApiOkResponse({ description: '`{sales: [...], count, next_url}` (next_url null on the last page)' })
  async list(@Req() request: FastifyRequest, @Query() query: Record<string, string>) {
    const settings = await this.settings.current();
    const { timezone } = settings;
    const { limit, after, filters } = dataPage(query, SALES_QUERY, settings);
    const rows = await this.sales.list({ limit, after, filters, from: dateBound('from', query.from, timezone), to: dateBound('to', query.to, timezone) });
    const sales = rows.map((r) => r.sale);
    const next = nextUrl(request, rows.length === limit ? rows[rows.length - 1].id : null);
    return { sales, count: sales.length, next_url: next };
  }

  @Get('api/data/sales/:sale_external_id')
  @ApiTags('retrieval')
  @RequirePermission('data:read')
  @ApiOperation({ summary: 'One sale transaction by its sale_external_id, with its rows; 404 when there is none' })
  @ApiOkResponse({ description: 'The transaction as the list shows it, with `id` and `updated_at`' })
  async one(@Param('sale_external_id') saleId: string) {
    const [row] = await this.sales.list({ limit: 1, filters: { sale_external_id: saleId } });
    if (!row) throw notFound(`No sale has the sale_external_id ${JSON.stringify(saleId.slice(0, 100))}`);
    return row.sale;
  }
}
