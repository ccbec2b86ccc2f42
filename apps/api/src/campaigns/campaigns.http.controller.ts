import { Body, Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UploadAnswer } from '#mds/imports';
import { invalidRequest, markTimestampsInForm, notFound } from '#mds/platform';
import { CAMPAIGNS_READ_MODEL, type CampaignsReadModel } from '#mds/projections';
import { RequirePermission } from '../access/permissions';
import { withParam } from '../imports/paging';
import { UploadEndpoint } from '../imports/upload-endpoint';
import { uploadBody } from '../platform/openapi-records';
import { uploadCommand } from '../imports/uploads';
import { CampaignDailyQuery, CampaignStatisticsQuery, decodeCursor, encodeCursor, salesBound } from './campaign-statistics.request.dto';

const CAMPAIGN_FIELDS =
  '{campaign_key, kind, automated, name, state, activated_at, utm_campaign, campaign_tags, folder, permissions, product_ids, stats: {date_range, audience_size, audience_with_events, audience_with_sales, ' +
  'sales_for_conversion, audience_unreachable, audience_no_reaction, events: [{name, count}], sales: {date_range, total_sales, total_revenue, average_products_count, total_products_count, ' +
  'campaign_product_count, campaign_product_revenue, other_product_count, other_product_revenue, product_categories: [{title, units, revenue, discount}]}, cache_modified_at, ' +
  'performance: {audience_reached, unique_opens, total_opens, unique_clicks, total_clicks, audience_converted, open_rate, click_rate, conversion_rate, revenue_per_recipient}} | null}';

const DAY_FIELDS = '{date, sent, delivered, opens, clicks, unsubscribes, spam_reports, bounces, unique_opens, unique_clicks, total_sales, total_revenue, sales_for_conversion}';

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
  upload(@Req() request: FastifyRequest, @Body() body: unknown): Promise<UploadAnswer> {
    return this.commands.execute(uploadCommand('campaigns', request, body));
  }

  @UploadEndpoint('POST', 'api/campaigns/events/upload', {
    summary: 'Import campaign events: `{events: [{campaign_key, type, date, customer_id | email | phone_number | customer_token}]}`',
    description:
      'type: sent, delivered, open, click, unsubscribe, spam_report, bounce (others are record errors). The customer is identified as for customer events. ' +
      'An event of a campaign not imported yet is kept and counts once the campaign arrives. Same run pattern as every import.',
  }, uploadBody('campaign_events'))
  uploadEvents(@Req() request: FastifyRequest, @Body() body: unknown): Promise<UploadAnswer> {
    return this.commands.execute(uploadCommand('campaign_events', request, body));
  }

  @Get(['api/campaign/actions', 'api/campaigns/statistics'])
  @RequirePermission('data:read')
  @ApiOperation({
    summary: 'Campaign statistics (also at /api/campaigns/statistics/, the beta path): `keys`, `limit` (default 30, max 100), `order` (descending by activation, or ascending), `from` (the `next` of an earlier page), `sales_start`/`sales_end` (sales figures of that range only)',
    description: 'Statistics follow the log incrementally; `stats` is null for draft and EXT campaigns. Paging is stable while campaigns are imported: none is skipped or repeated. ' +
      'With `sales_start` and/or `sales_end`, the sales figures (`audience_with_sales`, `sales_for_conversion`, `sales`, `performance.audience_converted`, `conversion_rate`, `revenue_per_recipient`) count only the counted sales in that range; a start after the end is a 400.',
  })
  @ApiQuery({ name: 'keys', required: false, description: 'Comma-separated campaign keys' })
  @ApiQuery({ name: 'limit', required: false, type: Number })
  @ApiQuery({ name: 'order', required: false, enum: ['descending', 'ascending'] })
  @ApiQuery({ name: 'from', required: false, description: 'The `next` of an earlier page' })
  @ApiQuery({ name: 'sales_start', required: false, description: "Count only sales from this date (a day in the settings' time zone) or timestamp on, inside the 30-day window" })
  @ApiQuery({ name: 'sales_end', required: false, description: "Count only sales up to this date (the whole day, in the settings' time zone) or timestamp, inside the 30-day window" })
  @ApiOkResponse({ description: `\`{campaigns: [${CAMPAIGN_FIELDS}], count, next, next_url}\` (next and next_url null on the last page)` })
  async statistics(@Req() request: FastifyRequest, @Query() query: CampaignStatisticsQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const limit = query.limit ?? 30;
    const keys = query.keys === undefined ? undefined : [...new Set(query.keys.split(',').map((k) => k.trim()).filter(Boolean))];
    if (keys && keys.length > 1000) throw invalidRequest('keys: at most 1000 campaign keys');
    const order = query.order ?? 'descending';
    const sales = { start: salesBound(query.sales_start), end: salesBound(query.sales_end) };
    if (sales.start && sales.end && (await this.campaigns.salesRangeReversed({ start: sales.start, end: sales.end }))) {
      throw invalidRequest(`sales_start (${query.sales_start!.trim()}) must not be after sales_end (${query.sales_end!.trim()})`);
    }
    const page = await this.campaigns.list({ limit, order, keys, from: query.from ? decodeCursor(query.from) : undefined, sales });
    const next = page.json.length === limit && page.last ? encodeCursor(page.last) : null;
    const nextUrl = next ? withParam(request, 'from', next) : null;
    reply.type('application/json; charset=utf-8');
    // The records' timestamps are in the answers' form already (fixed once per page read); next and next_url hold none.
    markTimestampsInForm(reply);
    return `{"campaigns":[${page.text}],"count":${page.json.length},"next":${JSON.stringify(next)},"next_url":${JSON.stringify(nextUrl)}}`;
  }

  @Get(['api/campaign/actions/:campaign_key/daily', 'api/campaigns/statistics/:campaign_key/daily'])
  @RequirePermission('data:read')
  @ApiOperation({
    summary: "A campaign's figures per day in the settings' time zone (also under /api/campaigns/statistics/): `limit` (days, default 100, max 1,000), `from` (a date: the first day wanted, or `next`)",
    description:
      'Every day of the 30-day window (31 days, zeros included) and every other day with an event of the campaign, oldest first. Event counts as `stats.events` counts them (they add up to it); ' +
      '`unique_opens`/`unique_clicks`: audience members that day; sales: the counted sales of that day. Draft and EXT campaigns have no figures: `days` is empty. 404 when no campaign has the key.',
  })
  @ApiQuery({ name: 'limit', required: false, type: Number })
  @ApiQuery({ name: 'from', required: false, description: 'A date YYYY-MM-DD: the first day wanted (the `next` of an earlier page)' })
  @ApiOkResponse({ description: `\`{campaign_key, timezone, days: [${DAY_FIELDS}], count, next, next_url}\` (next and next_url null on the last page)` })
  async daily(@Req() request: FastifyRequest, @Param('campaign_key') key: string, @Query() query: CampaignDailyQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const limit = query.limit ?? 100;
    const series = await this.campaigns.days(key, { limit, from: query.from || undefined });
    if (!series) throw notFound(`No campaign has the key ${JSON.stringify(key.slice(0, 100))}`);
    const nextUrl = series.next ? withParam(request, 'from', series.next) : null;
    reply.type('application/json; charset=utf-8');
    return `{"campaign_key":${JSON.stringify(key)},"timezone":${JSON.stringify(series.timezone)},"days":[${series.json.join(',')}],"count":${series.json.length},` +
      `"next":${JSON.stringify(series.next)},"next_url":${JSON.stringify(nextUrl)}}`;
  }
}
