import type { Pool } from 'pg';
import { perRecipient, rate, SALES_FIGURES } from './campaign-stats.sql';

/** A position in the list: the campaign's activation (null: none) and its key. */
export type CampaignCursor = [string | null, string];

type ListOptions = { limit: number; order: 'ascending' | 'descending'; from?: CampaignCursor; keys?: string[]; sales?: SalesRange };

/**
 * A page of campaign statistics records in activation order (`descending`: newest first; campaigns
 * without an activation last in either order; ties by key), after `from`: keyset paging, so a campaign imported
 * between two pages is neither repeated nor makes another one skipped. `keys` keeps those campaigns.
 * Each record is the campaign as imported with the spec's fields filled (null when never sent) and
 * its `stats`, as the projection wrote it: JSON text, ready. With `sales`, the sales figures count
 * that range only; `kept` holds such records between requests (see RangeFigures).
 */
export async function listCampaigns(
  pool: Pool,
  options: ListOptions,
  kept?: RangeFigures,
): Promise<{ json: string[]; last?: CampaignCursor }> {
  const range = options.sales && (options.sales.start || options.sales.end) ? options.sales : undefined;
  if (!range || !kept) {
    const rows = await pageRows(pool, options, range ? 'figures' : 'record');
    return { json: rows.map((r) => (r.filtered ? refigure(r.record!, r.filtered) : r.record!)), last: cursorOf(rows) };
  }
  // The page's keys and digests; the records kept for this range and those digests are answered as
  // kept, the others computed (and kept under the digest that query read).
  const rows = await pageRows(pool, options, 'figured');
  const bounds = JSON.stringify([range.start ?? null, range.end ?? null]);
  const keyOf = (r: PageRow) => `${bounds} ${r.zone} ${r.campaign_key} ${r.figured}`;
  const json = rows.map((r) => kept.get(keyOf(r)));
  const missing = rows.filter((_, i) => json[i] === undefined).map((r) => r.campaign_key);
  if (missing.length > 0) {
    const computed = new Map<string, string>();
    for (const r of await pageRows(pool, { limit: missing.length, order: options.order, keys: missing, sales: range }, 'figures')) {
      const record = refigure(r.record!, r.filtered!);
      kept.set(keyOf(r), record);
      computed.set(r.campaign_key, record);
    }
    rows.forEach((r, i) => (json[i] ??= computed.get(r.campaign_key)));
  }
  // A campaign gone between the two queries (none is deleted today) is left out rather than answered empty.
  return { json: json.filter((j): j is string => j !== undefined), last: cursorOf(rows) };
}

/**
 * Records of a sales-range list kept between requests, by range, campaign and the digest of what the
 * campaign's range figures are computed from (campaign_stats.figured): a campaign whose sales change
 * has a new digest, so what is kept is never stale, only unused; the least recently used go past `max`.
 */
export class RangeFigures {
  private readonly entries = new Map<string, string>();
  constructor(private readonly max = 5000) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): string | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: string): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }
}

interface PageRow {
  record?: string;
  filtered?: string;
  figured?: string;
  zone?: string;
  activation_text: string | null;
  campaign_key: string;
}

const cursorOf = (rows: PageRow[]): CampaignCursor | undefined => {
  const last = rows.at(-1);
  return last ? [last.activation_text, last.campaign_key] : undefined;
};

/** The page's rows: each record (`record`), with its range figures (`figures`), or only the digest of their inputs (`figured`). */
async function pageRows(
  pool: Pool,
  options: ListOptions,
  want: 'record' | 'figures' | 'figured',
): Promise<PageRow[]> {
  const params: unknown[] = [options.limit];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  // Campaigns without an activation come last either way: below every time descending, above ascending.
  const none = options.order === 'ascending' ? `'infinity'::timestamptz` : `'-infinity'::timestamptz`;
  const sort = `coalesce(cp.activation, ${none})`;
  const where: string[] = [];
  if (options.keys) where.push(`cp.campaign_key = ANY (${p(options.keys)}::text[])`);
  if (options.from) {
    const at = options.from[0] === null ? none : `${p(options.from[0])}::timestamptz`;
    where.push(`(${sort}, cp.campaign_key) ${options.order === 'ascending' ? '>' : '<'} (${at}, ${p(options.from[1])})`);
  }
  const dir = options.order === 'ascending' ? 'ASC' : 'DESC';
  // A plain page reads only what it answers; a ranged one also the digest and zone its records are kept
  // under, and the one summed again its sort key (filteredFigures orders by it).
  const columns = { record: 's.record', figures: `s.record, s.reached, s.figured, (SELECT timezone FROM campaign_settings) AS zone, ${sort} AS sort`, figured: 's.figured, (SELECT timezone FROM campaign_settings) AS zone' }[want];
  const page = `SELECT ${columns},
            to_char(cp.activation AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS activation_text, cp.campaign_key
       FROM campaigns cp JOIN campaign_stats s USING (campaign_key)
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY ${sort} ${dir}, cp.campaign_key ${dir} LIMIT $1`;
  const { rows } = await pool.query<PageRow>(want === 'figures' ? filteredFigures(page, options.sales!, p, dir) : page, params);
  return rows;
}

/**
 * A bound of `sales_start`/`sales_end`: a day in the settings' time zone (`day`), an instant
 * (`instant`, ISO with its offset), or a wall-clock time in that zone (`local`). Days compare with a
 * sale's day as the window counts it; the end bound includes its day or instant.
 */
export type SalesBound = { kind: 'day' | 'instant' | 'local'; value: string };
export interface SalesRange {
  start?: SalesBound;
  end?: SalesBound;
}

/**
 * The page's records with their sales figures summed again over the counted sales inside the range
 * (campaign_sales, campaign_sale_categories, which the projection writes with the figures): the
 * sales figures, the buyers and converted sales and members, and the rates that depend on them, as
 * a JSON object of the keys to replace (see refigure). Rows of the page's campaigns only, by index.
 */
function filteredFigures(page: string, range: SalesRange, p: (v: unknown) => string, dir: string): string {
  const zone = `(SELECT timezone FROM campaign_settings)`;
  const bound = (b: SalesBound, op: '>=' | '<=') =>
    b.kind === 'day' ? `x.day ${op} ${p(b.value)}::date` : b.kind === 'instant' ? `x.at ${op} ${p(b.value)}::timestamptz` : `x.at ${op} (${p(b.value)}::timestamp AT TIME ZONE ${zone})`;
  const conditions = [range.start ? bound(range.start, '>=') : 'true', range.end ? bound(range.end, '<=') : 'true'].join(' AND ');
  // Each campaign's sums by LATERAL, on its key: an index scan whatever the planner knows of the
  // tables (a join over the page planned, before ANALYZE, a scan of every counted sale: 40 ms, not 6).
  return `WITH page AS (${page}
    )
    SELECT page.record, page.figured, page.zone, page.activation_text, page.campaign_key, json_build_object(
             'audience_with_sales', coalesce(t.buyers, 0),
             'sales_for_conversion', coalesce(t.converted, 0),
             'sales', json_build_object(
               ${SALES_FIGURES('t', 't', 'c')}),
             'performance', json_build_object(
               'audience_converted', coalesce(t.converted_buyers, 0),
               'conversion_rate', ${rate('coalesce(t.converted_buyers, 0)', 'page.reached')},
               'revenue_per_recipient', ${perRecipient('coalesce(t.revenue, 0)', 'page.reached')}))::text AS filtered
      FROM page
      LEFT JOIN LATERAL (
        SELECT count(*) AS sales, sum(x.revenue) AS revenue, count(DISTINCT x.member) AS buyers, count(*) FILTER (WHERE x.converted) AS converted,
               count(DISTINCT x.member) FILTER (WHERE x.converted) AS converted_buyers, sum(x.units) AS units, sum(x.own_units) AS own_units, sum(x.own_revenue) AS own_revenue,
               sum(x.other_units) AS other_units, sum(x.other_revenue) AS other_revenue
          FROM campaign_sales x WHERE x.campaign_key = page.campaign_key AND ${conditions} HAVING count(*) > 0) t ON true
      LEFT JOIN LATERAL (
        SELECT json_agg(json_build_object('title', title, 'units', units, 'revenue', revenue, 'discount', discount) ORDER BY revenue DESC, title) AS list
          FROM (SELECT x.title, sum(x.units) AS units, sum(x.revenue) AS revenue, sum(x.discount) AS discount
                  FROM campaign_sale_categories x WHERE x.campaign_key = page.campaign_key AND ${conditions} GROUP BY 1) g HAVING count(*) > 0) c ON true
     ORDER BY page.sort ${dir}, page.campaign_key ${dir}`;
}

/**
 * Whether `start` lies after `end` once both are instants in the settings' time zone (a day starts at
 * its midnight there; an end day takes in the whole day): a range no sale can fall in, which the API
 * refuses rather than answering with zeros. Kinds may differ, so the zone decides, as in the filter.
 */
export async function salesRangeReversed(pool: Pool, range: Required<SalesRange>): Promise<boolean> {
  // Two days (YYYY-MM-DD) compare as text, with no zone and no query.
  if (range.start.kind === 'day' && range.end.kind === 'day') return range.start.value > range.end.value;
  const zone = `(SELECT timezone FROM campaign_settings)`;
  const instant = (b: SalesBound, n: number) =>
    b.kind === 'day' ? `($${n}::date::timestamp AT TIME ZONE ${zone})` : b.kind === 'instant' ? `$${n}::timestamptz` : `($${n}::timestamp AT TIME ZONE ${zone})`;
  const end = range.end.kind === 'day' ? `(($2::date + 1)::timestamp AT TIME ZONE ${zone})` : instant(range.end, 2);
  const { rows } = await pool.query<{ reversed: boolean }>(
    `SELECT ${instant(range.start, 1)} ${range.end.kind === 'day' ? '>=' : '>'} ${end} AS reversed`,
    [range.start.value, range.end.value],
  );
  return rows[0].reversed;
}

/** A record with the figures of a filtered list put in place of its own (its keys and their order kept). */
function refigure(record: string, filtered: string): string {
  const r = JSON.parse(record) as { stats: Record<string, unknown> | null };
  if (!r.stats) return record;
  const replace = (into: Record<string, unknown>, from: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(from)) {
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && into[k] && typeof into[k] === 'object') replace(into[k] as Record<string, unknown>, v as Record<string, unknown>);
      else into[k] = v;
    }
  };
  replace(r.stats, JSON.parse(filtered) as Record<string, unknown>);
  return JSON.stringify(r);
}

/** A campaign's daily series from `from` (a date; the first day when absent), `limit` days, and the day after them (null: none). */
export async function campaignDays(
  pool: Pool,
  key: string,
  options: { limit: number; from?: string },
): Promise<{ timezone: string; json: string[]; next: string | null } | undefined> {
  const { rows } = await pool.query<{ timezone: string; day: string | null; json: string | null }>(
    `SELECT z.timezone, d.day::text AS day, d.json
       FROM campaign_stats s CROSS JOIN campaign_settings z
       LEFT JOIN LATERAL (
         SELECT d.day, json_build_object('date', d.day, 'sent', d.sent, 'delivered', d.delivered, 'opens', d.opens, 'clicks', d.clicks, 'unsubscribes', d.unsubscribes,
                                         'spam_reports', d.spam_reports, 'bounces', d.bounces, 'unique_opens', d.unique_opens, 'unique_clicks', d.unique_clicks,
                                         'total_sales', d.total_sales, 'total_revenue', d.total_revenue, 'sales_for_conversion', d.sales_for_conversion)::text AS json
           FROM campaign_days d WHERE d.campaign_key = s.campaign_key AND d.day >= coalesce($2::date, '-infinity') ORDER BY d.day LIMIT $3) d ON true
      WHERE s.campaign_key = $1
      ORDER BY d.day`,
    [key, options.from ?? null, options.limit + 1],
  );
  if (rows.length === 0) return undefined;
  const days = rows.filter((r) => r.json !== null);
  const more = days.length > options.limit;
  return { timezone: rows[0].timezone, json: days.slice(0, options.limit).map((r) => r.json!), next: more ? days[options.limit].day : null };
}
