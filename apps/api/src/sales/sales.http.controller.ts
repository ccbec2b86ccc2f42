import { Body, Controller, Get, Inject, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CommandBus } from '@nestjs/cqrs';
import type { ImportAnswer } from '#mds/imports';
import { SALES_READ_MODEL, SETTINGS_READ_MODEL, type SalesReadModel, type SettingsReadModel } from '#mds/projections';
import { RequirePermission } from '../access/permissions';
import { UploadEndpoint } from '../imports/upload-endpoint';
import { uploadBody } from '../platform/openapi-records';
import { dataPage, dateBound, nextUrl } from '../imports/paging';
import { uploadCommand } from '../imports/uploads';

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
  upload(@Req() request: FastifyRequest, @Body() body: unknown): Promise<ImportAnswer> {
    return this.commands.execute(uploadCommand('sales', request, body));
  }

  // A second handler: stacked @Post and @Put on one method register only the outermost (POST).
  @ApiTags('imports')
  @UploadEndpoint('PUT', ['api/sales/upload', 'api/sale/upload'], { summary: 'Import sale rows (PUT spelling; the same as POST)' }, uploadBody('sales'))
  uploadPut(@Req() request: FastifyRequest, @Body() body: unknown): Promise<ImportAnswer> {
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
    const { limit, after, filters } = dataPage(query, ['limit', 'after', 'access-token', 'from', 'to']);
    const { timezone } = await this.settings.current();
    const rows = await this.sales.list({ limit, after, filters, from: dateBound('from', query.from, timezone), to: dateBound('to', query.to, timezone) });
    const sales = rows.map((r) => r.sale);
    const next = nextUrl(request, rows.length === limit ? rows[rows.length - 1].id : null);
    return { sales, count: sales.length, next_url: next };
  }
}
