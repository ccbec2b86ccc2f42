import { Body, Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ImportAnswer } from '#mds/imports';
import { invalidRequest } from '#mds/platform';
import { CAMPAIGNS_READ_MODEL, type CampaignsReadModel } from '#mds/projections';
import { RequirePermission } from '../access/permissions';
import { withParam } from '../imports/paging';
import { UploadEndpoint } from '../imports/upload-endpoint';
import { uploadBody } from '../platform/openapi-records';
import { uploadCommand } from '../imports/uploads';
import { CampaignStatisticsQuery, decodeCursor, encodeCursor } from './campaign-statistics.request.dto';

const CAMPAIGN_FIELDS =
  '{campaign_key, kind, automated, name, state, activated_at, utm_campaign, campaign_tags, folder, permissions, product_ids, stats: {date_range, audience_size, audience_with_events, audience_with_sales, ' +
  'sales_for_conversion, audience_unreachable, audience_no_reaction, events: [{name, count}], sales: {date_range, total_sales, total_revenue, average_products_count, total_products_count, ' +
  'campaign_product_count, campaign_product_revenue, other_product_count, other_product_revenue, product_categories: [{title, units, revenue, discount}]}, cache_modified_at} | null}';

@ApiTags('campaigns')
@Controller()
export class CampaignsHttpController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(CAMPAIGNS_READ_MODEL) private readonly campaigns: CampaignsReadModel,
  ) {}

  @UploadEndpoint('POST', 'api/campaigns/upload', {
    summary: 'Import campaigns: `{campaigns: [...]}` by campaign_key; a key imported again is patched ("" removes a field)',
    description:
      'Fields: campaign_key (required), kind (automated-email, email, sms, EXT, or others kept), automated, name, state (active, draft, or others kept), activated_at, utm_campaign, ' +
      'campaign_tags [{id, label}], folder {id, name}, permissions {marketing_permission}, product_ids (the campaign\'s own products). Partial acceptance, `?atomic=true`, `Idempotency-Key`; ' +
      'GET /api/runs/{run_id}/ is completed once the statistics include the run.',
  }, uploadBody('campaigns'))
  upload(@Req() request: FastifyRequest, @Body() body: unknown): Promise<ImportAnswer> {
    return this.commands.execute(uploadCommand('campaigns', request, body));
  }

  @UploadEndpoint('POST', 'api/campaigns/events/upload', {
    summary: 'Import campaign events: `{events: [{campaign_key, type, date, customer_id | email | phone_number | customer_token}]}`',
    description:
      'type: sent, delivered, open, click, unsubscribe, spam_report, bounce (others are record errors). The customer is identified as for customer events. ' +
      'An event of a campaign not imported yet is kept and counts once the campaign arrives. Same run pattern as every import.',
  }, uploadBody('campaign_events'))
  uploadEvents(@Req() request: FastifyRequest, @Body() body: unknown): Promise<ImportAnswer> {
    return this.commands.execute(uploadCommand('campaign_events', request, body));
  }

  @Get(['api/campaign/actions', 'api/campaigns/statistics'])
  @RequirePermission('data:read')
  @ApiOperation({
    summary: 'Campaign statistics (also at /api/campaigns/statistics/, the beta path): `keys`, `limit` (default 30, max 100), `order` (descending by activation, or ascending), `from` (the `next` of an earlier page)',
    description: 'Statistics follow the log incrementally; `stats` is null for draft and EXT campaigns. Paging is stable while campaigns are imported: none is skipped or repeated.',
  })
  @ApiQuery({ name: 'keys', required: false, description: 'Comma-separated campaign keys' })
  @ApiQuery({ name: 'limit', required: false, type: Number })
  @ApiQuery({ name: 'order', required: false, enum: ['descending', 'ascending'] })
  @ApiQuery({ name: 'from', required: false, description: 'The `next` of an earlier page' })
  @ApiOkResponse({ description: `\`{campaigns: [${CAMPAIGN_FIELDS}], count, next, next_url}\` (next and next_url null on the last page)` })
  async statistics(@Req() request: FastifyRequest, @Query() query: CampaignStatisticsQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const limit = query.limit ?? 30;
    const keys = query.keys === undefined ? undefined : [...new Set(query.keys.split(',').map((k) => k.trim()).filter(Boolean))];
    if (keys && keys.length > 1000) throw invalidRequest('keys: at most 1000 campaign keys');
    const order = query.order ?? 'descending';
    const page = await this.campaigns.list({ limit, order, keys, from: query.from ? decodeCursor(query.from) : undefined });
    const next = page.json.length === limit && page.last ? encodeCursor(page.last) : null;
    const nextUrl = next ? withParam(request, 'from', next) : null;
    reply.type('application/json; charset=utf-8');
    return `{"campaigns":[${page.json.join(',')}],"count":${page.json.length},"next":${JSON.stringify(next)},"next_url":${JSON.stringify(nextUrl)}}`;
  }
}
