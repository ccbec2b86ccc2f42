/**
 * The SQL of campaign statistics: who a campaign event or a sale stands for (PERSON), and the
 * statistics of a set of campaigns computed from the read models as they stand (STATS). The README's
 * "Campaign statistics" section defines each figure in words, with a worked example.
 */

/** sha256 hex, as forgotten_identifiers keeps identifiers (the customers projection's identifier_hash). */
const hash = (expr: string) => `encode(sha256(convert_to(${expr}, 'UTF8')), 'hex')`;

/**
 * The person of a record naming these identifiers (SQL expressions, possibly NULL): the customer they
 * find as imports find one (external_id, then phone, then e-mail, then cb_token; the oldest customer
 * when several share one), a forgotten identifier counting as its customer still (the row stays,
 * emptied); else the identifier itself (`x`/`p`/`m`/`t` and its hash), so an unknown e-mail in a sent
 * event and in a sale is one person, without the e-mail in the key.
 */
export const PERSON = (ext: string, phone: string, email: string, token: string) => `coalesce(
    (SELECT 'c' || c.customer_id FROM customers c WHERE c.external_id = ${ext}),
    (SELECT 'c' || min(f.customer_id) FROM forgotten_identifiers f WHERE f.kind = 'external_id' AND f.hash = ${hash(ext)}),
    (SELECT 'c' || min(c.customer_id) FROM customers c WHERE c.phone = ${phone}),
    (SELECT 'c' || min(f.customer_id) FROM forgotten_identifiers f WHERE f.kind = 'phone' AND f.hash = ${hash(phone)}),
    (SELECT 'c' || min(c.customer_id) FROM customers c WHERE c.email = ${email}),
    (SELECT 'c' || min(f.customer_id) FROM forgotten_identifiers f WHERE f.kind = 'email' AND f.hash = ${hash(email)}),
    (SELECT 'c' || min(c.customer_id) FROM customers c WHERE c.data->>'cb_token' = ${token} AND c.data ? 'cb_token'),
    'x' || ${hash(ext)}, 'p' || ${hash(phone)}, 'm' || ${hash(email)}, 't' || ${hash(token)})`;

/**
 * A campaign event's identity (with its campaign, type and time, the key it is kept once under): a
 * hash of its identifiers, which as text could outgrow an index entry. The erasure computes it again
 * from the markers it writes, as a rebuild would.
 */
export const EVENT_IDENTITY = (ext: string, phone: string, email: string, token: string) =>
  `encode(sha256(convert_to(concat_ws('|', 'x' || ${ext}, 'p' || ${phone}, 'm' || ${email}, 't' || ${token}), 'UTF8')), 'hex')`;

/** The settings' time zone, as the campaigns projection keeps it (campaign_settings). */
const ZONE = `(SELECT timezone FROM campaign_settings)`;

/** Timestamps as the API writes them (UTC, milliseconds, Z). */
const iso = (expr: string) => `to_char((${expr}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A rate of the performance figures: a fraction rounded to 4 decimals (half away from zero), null when
 * its denominator is 0. `perRecipient`: an amount per member, to 2 decimals. Beside STATS, the list
 * filtered by sales dates computes them with the same expressions.
 */
export const rate = (num: string, den: string) => `CASE WHEN ${den} > 0 THEN round((${num})::numeric / ${den}, 4)::float8 END`;
export const perRecipient = (num: string, den: string) => `CASE WHEN ${den} > 0 THEN round((${num})::numeric / ${den}, 2)::float8 END`;

/**
 * The spec's sales figures after `date_range`, as `json_build_object` arguments: `sales` the row of
 * counted sales and revenue (`.sales`, `.revenue`), `lines` that of units (`.units`, `.own_*`,
 * `.other_*`), `categories` that of the category list (`.list`). Shared by the projection (the 30-day
 * window) and the list with a sales range.
 */
export const SALES_FIGURES = (sales: string, lines: string, categories: string) => `'total_sales', coalesce(${sales}.sales, 0),
             'total_revenue', coalesce(${sales}.revenue, 0),
             'average_products_count', coalesce(round(${lines}.units / nullif(${sales}.sales, 0), 2), 0),
             'total_products_count', coalesce(${lines}.units, 0),
             'campaign_product_count', coalesce(${lines}.own_units, 0),
             'campaign_product_revenue', coalesce(${lines}.own_revenue, 0),
             'other_product_count', coalesce(${lines}.other_units, 0),
             'other_product_revenue', coalesce(${lines}.other_revenue, 0),
             'product_categories', coalesce(${categories}.list, '[]')`;

/** The seven event names of `stats.events`, in the spec's order, from the types imported. */
const EVENT_NAMES = `(VALUES (1, 'sent', 'sent'), (2, 'delivered', 'delivered'), (3, 'open', 'opens'), (4, 'click', 'clicks'),
    (5, 'unsubscribe', 'unsubscribes'), (6, 'spam_report', 'spam_reports'), (7, 'bounce', 'bounces')) AS n(ord, type, name)`;

/**
 * The statistics of the campaigns whose keys are `$1` (text[]): one row each with its activation,
 * `stats` (null for draft and EXT campaigns; json, so its keys keep the spec's order), when its inputs
 * last changed (log time), the sales and products it counted, and its `record` as the list shows it.
 * - Events count once per (campaign, person, type, time). The audience is the persons with a `sent`
 *   event; per member: any event besides sent (`with_events`), a bounce and nothing delivered, opened
 *   or clicked (`unreachable`), reached but no open, click, unsubscribe or spam report (`no_reaction`).
 * - Counted sales: transactions of audience members, not deleted, whose state counts (not CANCELLED or
 *   CLOSED), dated from the activation date to 30 days after, both included, as days in the settings' time zone. A sale converts
 *   when its buyer opened or clicked the campaign at or before it.
 * - Rows: units and revenue as stored (cents of the default currency); a returned row (tag CANCELED)
 *   counts 0; a row's product is its product_id or the product its sku/ean is linked to; the
 *   campaign's products are its product_ids; categories by the product's first category (a category
 *   text's part before its first comma: lists are kept joined).
 * - Beyond the spec: `stats.performance` (opens and clicks of audience members, the members reached,
 *   the rates), and, for the tables of the daily series and of the sales filter, `days` (per day in the
 *   zone: the window's days and every day with an event), `sale_rows` (each counted sale, its buyer
 *   as an ordinal within the audience) and `category_rows` (their rows by category, per sale time).
 */
export const STATS = `WITH c AS (
  SELECT cp.campaign_key, cp.data, cp.updated_at,
         coalesce((cp.data->>'activated_at')::timestamptz,
                  (SELECT min(e.at) FROM campaign_events e WHERE e.campaign_key = cp.campaign_key AND e.type = 'sent')) AS activation,
         lower(coalesce(cp.data->>'state', '')) = 'draft' OR upper(coalesce(cp.data->>'kind', '')) = 'EXT' AS no_stats,
         -- Not sent: derived from the kind, as the spec's kinds say (automated-email).
         coalesce((cp.data->>'automated')::boolean, lower(coalesce(cp.data->>'kind', '')) ~ '^automated([-_ ]|$)') AS automated,
         ARRAY(SELECT jsonb_array_elements_text(CASE WHEN jsonb_typeof(cp.data->'product_ids') = 'array' THEN cp.data->'product_ids' ELSE '[]' END)) AS own
    FROM campaigns cp WHERE cp.campaign_key = ANY($1::text[])
), w AS (
  SELECT c.*, (c.activation AT TIME ZONE ${ZONE})::date AS first_day FROM c
), ev AS (
  SELECT DISTINCT e.campaign_key, e.person, e.type, e.at FROM campaign_events e JOIN c USING (campaign_key)
), counts AS (
  SELECT campaign_key, jsonb_object_agg(type, n) AS n FROM (SELECT campaign_key, type, count(*) AS n FROM ev GROUP BY 1, 2) x GROUP BY 1
), logged AS (
  SELECT e.campaign_key, max(e.logged_at) AS at FROM campaign_events e JOIN c USING (campaign_key) GROUP BY 1
), people AS (
  SELECT campaign_key, person, bool_or(type <> 'sent') AS with_events,
         bool_or(type = 'bounce') AND NOT bool_or(type IN ('delivered', 'open', 'click')) AS unreachable,
         bool_or(type IN ('open', 'click', 'unsubscribe', 'spam_report')) AS reacted,
         min(at) FILTER (WHERE type IN ('open', 'click')) AS engaged_at,
         count(*) FILTER (WHERE type = 'open') AS opens, count(*) FILTER (WHERE type = 'click') AS clicks,
         -- The buyer in sale_rows: an ordinal, not the person (whose key may derive from an identifier).
         row_number() OVER (PARTITION BY campaign_key ORDER BY person) AS member
    FROM ev GROUP BY 1, 2 HAVING bool_or(type = 'sent')
), audience AS (
  SELECT campaign_key, count(*) AS size, count(*) FILTER (WHERE with_events) AS with_events, count(*) FILTER (WHERE unreachable) AS unreachable,
         count(*) FILTER (WHERE NOT unreachable AND NOT reacted) AS no_reaction,
         count(*) FILTER (WHERE opens > 0) AS unique_opens, sum(opens) AS total_opens,
         count(*) FILTER (WHERE clicks > 0) AS unique_clicks, sum(clicks) AS total_clicks
    FROM people GROUP BY 1
), considered AS (
  SELECT w.campaign_key, p.person, p.member, p.engaged_at, s.sale_external_id, s.sale_total, s.sale_date, s.products, s.updated_at, s.in_statistics AND NOT s.is_deleted AS counts
    FROM w JOIN people p USING (campaign_key)
    JOIN campaign_sale_people sp ON sp.person = p.person
    JOIN sales s ON s.sale_external_id = sp.sale_external_id
   WHERE NOT w.no_stats AND w.activation IS NOT NULL AND (s.sale_date AT TIME ZONE ${ZONE})::date BETWEEN w.first_day AND w.first_day + 30
), considered_at AS (
  -- A sale cancelled or deleted later changed the figures too: its time counts for cache_modified_at.
  SELECT campaign_key, max(updated_at) AS at FROM considered GROUP BY 1
), sold AS (
  SELECT * FROM considered WHERE counts
), lines AS (
  SELECT so.campaign_key, so.sale_external_id, so.sale_date, r.product_id, coalesce(r.product_id = ANY (w.own), false) AS own,
         CASE WHEN r.returned THEN 0 ELSE coalesce((x->>'quantity')::numeric, 0) END AS units,
         CASE WHEN r.returned THEN 0 ELSE coalesce((x->>'total')::bigint, 0) END AS revenue,
         CASE WHEN r.returned THEN 0 ELSE coalesce((x->>'discount')::bigint, 0) END AS discount,
         coalesce((SELECT CASE jsonb_typeof(p.data->'category') WHEN 'array' THEN p.data->'category'->>0 WHEN 'string' THEN btrim(split_part(p.data->>'category', ',', 1)) END
                     FROM products p WHERE p.external_id = r.product_id ORDER BY p.language LIMIT 1), '') AS title
    FROM sold so JOIN w USING (campaign_key)
   CROSS JOIN LATERAL jsonb_array_elements(so.products) x
    LEFT JOIN product_links l ON NOT x ? 'product_id' AND l.sku = coalesce(x->>'product_sku', '') AND l.ean = coalesce(x->>'product_ean', '')
   CROSS JOIN LATERAL (SELECT coalesce(x->>'product_id', l.external_id) AS product_id,
                              EXISTS (SELECT 1 FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(x->'tags') = 'array' THEN x->'tags' ELSE '[]' END) t
                                       WHERE upper(t) IN ('CANCELED', 'CANCELLED')) AS returned) r
), line_totals AS (
  SELECT campaign_key, sum(units) AS units, coalesce(sum(units) FILTER (WHERE own), 0) AS own_units, coalesce(sum(revenue) FILTER (WHERE own), 0) AS own_revenue,
         coalesce(sum(units) FILTER (WHERE NOT own), 0) AS other_units, coalesce(sum(revenue) FILTER (WHERE NOT own), 0) AS other_revenue,
         coalesce(array_agg(DISTINCT product_id) FILTER (WHERE product_id IS NOT NULL), '{}') AS product_ids
    FROM lines GROUP BY 1
), categories AS (
  SELECT campaign_key, json_agg(json_build_object('title', title, 'units', units, 'revenue', revenue, 'discount', discount) ORDER BY revenue DESC, title) AS list
    FROM (SELECT campaign_key, title, sum(units) AS units, sum(revenue) AS revenue, sum(discount) AS discount FROM lines GROUP BY 1, 2) g GROUP BY 1
), sale_totals AS (
  SELECT campaign_key, count(*) AS sales, sum(sale_total) AS revenue, count(DISTINCT person) AS buyers,
         count(*) FILTER (WHERE engaged_at <= sale_date) AS converted, count(DISTINCT person) FILTER (WHERE engaged_at <= sale_date) AS converted_buyers,
         array_agg(sale_external_id ORDER BY sale_external_id) AS sale_ids
    FROM sold GROUP BY 1
), sale_lines AS (
  SELECT campaign_key, sale_external_id, sum(units) AS units, coalesce(sum(units) FILTER (WHERE own), 0) AS own_units, coalesce(sum(revenue) FILTER (WHERE own), 0) AS own_revenue,
         coalesce(sum(units) FILTER (WHERE NOT own), 0) AS other_units, coalesce(sum(revenue) FILTER (WHERE NOT own), 0) AS other_revenue
    FROM lines GROUP BY 1, 2
), sale_rows AS (
  SELECT so.campaign_key,
         json_agg(json_build_object('at', so.sale_date, 'day', (so.sale_date AT TIME ZONE ${ZONE})::date, 'member', so.member, 'converted', coalesce(so.engaged_at <= so.sale_date, false),
                                    'revenue', so.sale_total, 'units', coalesce(sl.units, 0), 'own_units', coalesce(sl.own_units, 0), 'own_revenue', coalesce(sl.own_revenue, 0),
                                    'other_units', coalesce(sl.other_units, 0), 'other_revenue', coalesce(sl.other_revenue, 0)) ORDER BY so.sale_date, so.sale_external_id) AS list
    FROM sold so LEFT JOIN sale_lines sl USING (campaign_key, sale_external_id) GROUP BY 1
), category_rows AS (
  SELECT campaign_key, json_agg(json_build_object('at', sale_date, 'day', (sale_date AT TIME ZONE ${ZONE})::date, 'title', title, 'units', units, 'revenue', revenue, 'discount', discount)
                                ORDER BY sale_date, title) AS list
    FROM (SELECT campaign_key, sale_date, title, sum(units) AS units, sum(revenue) AS revenue, sum(discount) AS discount FROM lines GROUP BY 1, 2, 3) g GROUP BY 1
), event_days AS (
  SELECT e.campaign_key, (e.at AT TIME ZONE ${ZONE})::date AS day,
         count(*) FILTER (WHERE e.type = 'sent') AS sent, count(*) FILTER (WHERE e.type = 'delivered') AS delivered, count(*) FILTER (WHERE e.type = 'open') AS opens,
         count(*) FILTER (WHERE e.type = 'click') AS clicks, count(*) FILTER (WHERE e.type = 'unsubscribe') AS unsubscribes,
         count(*) FILTER (WHERE e.type = 'spam_report') AS spam_reports, count(*) FILTER (WHERE e.type = 'bounce') AS bounces,
         count(DISTINCT p.person) FILTER (WHERE e.type = 'open') AS unique_opens, count(DISTINCT p.person) FILTER (WHERE e.type = 'click') AS unique_clicks
    FROM ev e JOIN w USING (campaign_key) LEFT JOIN people p USING (campaign_key, person)
   WHERE NOT w.no_stats GROUP BY 1, 2
), sale_days AS (
  SELECT campaign_key, (sale_date AT TIME ZONE ${ZONE})::date AS day, count(*) AS sales, sum(sale_total) AS revenue, count(*) FILTER (WHERE engaged_at <= sale_date) AS converted
    FROM sold GROUP BY 1, 2
), all_days AS (
  SELECT w.campaign_key, d::date AS day FROM w CROSS JOIN LATERAL generate_series(w.first_day, w.first_day + 30, interval '1 day') d WHERE NOT w.no_stats AND w.activation IS NOT NULL
  UNION SELECT campaign_key, day FROM event_days
), daily AS (
  SELECT a.campaign_key,
         json_agg(json_build_object('day', a.day, 'sent', coalesce(e.sent, 0), 'delivered', coalesce(e.delivered, 0), 'opens', coalesce(e.opens, 0), 'clicks', coalesce(e.clicks, 0),
                                    'unsubscribes', coalesce(e.unsubscribes, 0), 'spam_reports', coalesce(e.spam_reports, 0), 'bounces', coalesce(e.bounces, 0),
                                    'unique_opens', coalesce(e.unique_opens, 0), 'unique_clicks', coalesce(e.unique_clicks, 0),
                                    'total_sales', coalesce(s.sales, 0), 'total_revenue', coalesce(s.revenue, 0), 'sales_for_conversion', coalesce(s.converted, 0)) ORDER BY a.day) AS list
    FROM all_days a LEFT JOIN event_days e USING (campaign_key, day) LEFT JOIN sale_days s USING (campaign_key, day) GROUP BY 1
), computed AS (
  SELECT w.campaign_key, w.activation, w.data, w.automated,
         CASE WHEN w.no_stats THEN NULL ELSE json_build_object(
           'date_range', CASE WHEN w.automated AND w.activation IS NOT NULL
                              THEN json_build_object('start', ${iso('w.activation')}, 'end', ${iso("w.activation + interval '30 days'")}) END,
           'audience_size', coalesce(a.size, 0),
           'audience_with_events', coalesce(a.with_events, 0),
           'audience_with_sales', coalesce(st.buyers, 0),
           'sales_for_conversion', coalesce(st.converted, 0),
           'audience_unreachable', coalesce(a.unreachable, 0),
           'audience_no_reaction', coalesce(a.no_reaction, 0),
           'events', (SELECT json_agg(json_build_object('name', n.name, 'count', coalesce((cn.n->>n.type)::bigint, 0)) ORDER BY n.ord) FROM ${EVENT_NAMES}),
           'sales', json_build_object(
             'date_range', CASE WHEN w.activation IS NOT NULL THEN json_build_object('start', w.first_day::text, 'end', (w.first_day + 30)::text) END,
             ${SALES_FIGURES('st', 'lt', 'cat')}),
           'cache_modified_at', ${iso('greatest(w.updated_at, lg.at, ca.at)')},
           'performance', json_build_object(
             'audience_reached', coalesce(a.size - a.unreachable, 0),
             'unique_opens', coalesce(a.unique_opens, 0),
             'total_opens', coalesce(a.total_opens, 0),
             'unique_clicks', coalesce(a.unique_clicks, 0),
             'total_clicks', coalesce(a.total_clicks, 0),
             'audience_converted', coalesce(st.converted_buyers, 0),
             'open_rate', ${rate('a.unique_opens', 'coalesce(a.size - a.unreachable, 0)')},
             'click_rate', ${rate('a.unique_clicks', 'coalesce(a.size - a.unreachable, 0)')},
             'conversion_rate', ${rate('coalesce(st.converted_buyers, 0)', 'coalesce(a.size - a.unreachable, 0)')},
             'revenue_per_recipient', ${perRecipient('coalesce(st.revenue, 0)', 'coalesce(a.size - a.unreachable, 0)')})) END AS stats,
         coalesce(a.size - a.unreachable, 0) AS reached,
         CASE WHEN NOT w.no_stats THEN dy.list END AS days, sr.list AS sale_rows, cr.list AS category_rows,
         greatest(w.updated_at, lg.at, ca.at) AS modified_at,
         CASE WHEN w.no_stats THEN '{}' ELSE coalesce(st.sale_ids, '{}') END AS sale_ids,
         CASE WHEN w.no_stats THEN '{}' ELSE coalesce(lt.product_ids, '{}') END AS product_ids
    FROM w
    LEFT JOIN counts cn USING (campaign_key)
    LEFT JOIN logged lg USING (campaign_key)
    LEFT JOIN audience a USING (campaign_key)
    LEFT JOIN sale_totals st USING (campaign_key)
    LEFT JOIN considered_at ca USING (campaign_key)
    LEFT JOIN line_totals lt USING (campaign_key)
    LEFT JOIN categories cat USING (campaign_key)
    LEFT JOIN daily dy USING (campaign_key)
    LEFT JOIN sale_rows sr USING (campaign_key)
    LEFT JOIN category_rows cr USING (campaign_key)
)
SELECT c.campaign_key, c.activation, c.stats, c.modified_at, c.sale_ids, c.product_ids, c.automated, c.reached, c.days, c.sale_rows, c.category_rows,
       -- The record as the list shows it, ready: the spec's fields in its order (absent ones null or
       -- defaulted), other imported keys after them, the statistics last.
       (SELECT '{' || string_agg(to_json(f.k)::text || ':' || f.v, ',' ORDER BY f.ord, f.k) || '}' FROM (
          SELECT o.ord, o.k, CASE WHEN o.k = 'automated' THEN to_json(c.automated)::text ELSE coalesce((c.data->o.k)::text, o.none) END AS v
            FROM (VALUES (1, 'campaign_key', NULL), (2, 'kind', 'null'), (3, 'automated', 'false'), (4, 'name', 'null'), (5, 'state', 'null'), (6, 'activated_at', NULL),
                         (7, 'utm_campaign', NULL), (8, 'campaign_tags', '[]'), (9, 'folder', 'null'), (10, 'permissions', 'null'), (11, 'product_ids', NULL)) AS o(ord, k, none)
           WHERE c.data ? o.k OR o.none IS NOT NULL
          UNION ALL
          SELECT 50, e.key, e.value::text FROM jsonb_each(c.data) e
           WHERE e.key <> ALL (ARRAY['campaign_key', 'kind', 'automated', 'name', 'state', 'activated_at', 'utm_campaign', 'campaign_tags', 'folder', 'permissions', 'product_ids', 'stats'])
          UNION ALL
          SELECT 99, 'stats', coalesce(c.stats::text, 'null')) f) AS record
  FROM computed c`;

/**
 * The same statistics computed from scratch, for checking and as a benchmark's baseline: every
 * campaign event's and sale's person resolved again from the customers as they stand, in one
 * statement, without the persons the projection keeps current ($1: the campaign keys).
 */
export const STATS_FROM_SCRATCH = STATS.replace(
  /^WITH /,
  `WITH campaign_events AS (
  SELECT e.campaign_key, e.type, e.identity, e.at, e.ext, e.phone, e.email, e.token, e.logged_at, ${PERSON('e.ext', 'e.phone', 'e.email', 'e.token')} AS person
    FROM campaign_events e WHERE e.campaign_key = ANY($1::text[])
), campaign_sale_people AS (
  SELECT s.sale_external_id, CASE WHEN coalesce(s.customer_external_id, s.phone, s.email) IS NOT NULL THEN ${PERSON('s.customer_external_id', 's.phone', 's.email', 'NULL::text')} END AS person
    FROM sales s
), `,
);
