import * as path from 'node:path';
import { EVENTS_IMPORTED } from '#mds/activity';
import { CAMPAIGN_EVENTS_IMPORTED, CAMPAIGNS_IMPORTED } from '#mds/campaigns';
import { PRODUCTS_IMPORTED } from '#mds/catalog';
import { CUSTOMERS_IMPORTED } from '#mds/customers';
import type { RecordedEvent } from '#mds/event-store';
import { DATA_QUERY_ACCEPTED } from '#mds/imports';
import { SALES_IMPORTED } from '#mds/sales';
import { SETTINGS_CHANGED, type SettingsChanged } from '#mds/settings';
import { waitForUpstream } from '../runtime/consistency';
import { dataQueryOf } from '../runtime/data-query-sql';
import { pageRecords, queryByIndex, type Projection, type ProjectionTx } from '../runtime/projection';
import { EVENT_IDENTITY, PERSON, STATS } from './campaign-stats.sql';

/**
 * The read models campaign statistics read while applying, each at least at the version whose shape
 * they rely on (customers 6: forgotten identifiers know their customer).
 */
const UPSTREAM = { customers: 6, sales: 1, products: 1 };

const SUBSCRIPTIONS = ['MAIL_SUBSCRIBE', 'MAIL_UNSUBSCRIBE', 'SMS_SUBSCRIBE', 'SMS_UNSUBSCRIBE'];

/**
 * Campaigns, their message events, and each campaign's statistics, kept current incrementally: a
 * page marks the campaigns whose figures it may change (their own imports and events; the sales and
 * customers of their audience; the products they counted) and computes those again, in one
 * statement, from the read models as they stand. It applies a page only once customers, sales and
 * products have passed it, so what it reads reflects everything up to the page; a campaign's figures
 * are therefore a function of the log up to its checkpoint, and a rebuild gives the same.
 */
export const campaignsProjection: Projection = {
  name: 'campaigns',
  // 2: a product's first category is its category text up to the first comma (categories are strings).
  // 3: an event's identity is a hash of its identifiers (their text could outgrow an index entry).
  // 4: days (the 30-day window, a sale's day) in the settings' time zone; automated derived from the kind.
  // 5: campaign_events.position: where the import that logged the event is (a customer's export names its run).
  // 6: stats.performance (opens, clicks, rates), the daily series and the counted sales by time (sales_start/sales_end).
  // 7: campaign_stats.figured, a digest of what range figures are computed from (readers keep them under it).
  version: 7,
  eventTypes: [CAMPAIGNS_IMPORTED, CAMPAIGN_EVENTS_IMPORTED, CUSTOMERS_IMPORTED, EVENTS_IMPORTED, SALES_IMPORTED, PRODUCTS_IMPORTED, DATA_QUERY_ACCEPTED, SETTINGS_CHANGED],
  logDataTypes: [CAMPAIGNS_IMPORTED, CAMPAIGN_EVENTS_IMPORTED, CUSTOMERS_IMPORTED, EVENTS_IMPORTED, SALES_IMPORTED, PRODUCTS_IMPORTED],
  batchSize: 20,
  reads: UPSTREAM,
  tables: ['campaigns', 'campaign_events', 'campaign_sale_people', 'campaign_stats', 'campaign_settings', 'campaign_days', 'campaign_sales', 'campaign_sale_categories'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events, tx) {
    if (events.length === 0) return;
    // Customers, events, sales, products and bulk updates count only once there is an audience: a page
    // of them before any campaign event changes nothing, and one look says so (it used to wait for the
    // upstream read models and prepare the work tables first: six round trips a chunk of an import).
    if (!events.some((e) => STARTS_COUNTING.has(e.type)) && !(await active(tx))) return;
    await waitForUpstream(tx, UPSTREAM, events[events.length - 1].position);
    const of = (type: string) => events.filter((e) => e.type === type);
    // The campaigns to compute again and the persons that moved: tables kept by the connection and
    // emptied at every commit, as creating and dropping them for every page wrote the catalogs each
    // time (2-8 ms a page, a page of 20 chunks of new customers included).
    await tx.query(`SET LOCAL client_min_messages = warning;
      CREATE TEMP TABLE IF NOT EXISTS dirty (campaign_key text PRIMARY KEY) ON COMMIT DELETE ROWS;
      CREATE TEMP TABLE IF NOT EXISTS moved (person text PRIMARY KEY) ON COMMIT DELETE ROWS`);
    await importCampaigns(of(CAMPAIGNS_IMPORTED), tx);
    // Another time zone moves every campaign's days: all are computed again.
    const zone = of(SETTINGS_CHANGED).map((e) => (e.data as SettingsChanged).changes.timezone).filter((z): z is string => typeof z === 'string').at(-1);
    if (zone !== undefined) {
      const { rowCount } = await tx.query(`UPDATE campaign_settings SET timezone = $1 WHERE timezone IS DISTINCT FROM $1`, [zone]);
      if (rowCount) await tx.query(`INSERT INTO dirty SELECT campaign_key FROM campaigns ON CONFLICT DO NOTHING`);
    }
    const wasActive = await active(tx);
    await importCampaignEvents(of(CAMPAIGN_EVENTS_IMPORTED), tx);
    // Sales are followed (the person each one stands for) once there is an audience to count them for.
    if (await active(tx)) {
      if (!wasActive) await followSales(tx, 'SELECT sale_external_id FROM sales');
      const sales = of(SALES_IMPORTED);
      if (sales.length > 0) {
        const page = pageRecords(sales, '$1');
        await tx.query(`CREATE TEMP TABLE page_sales ON COMMIT DROP AS SELECT DISTINCT r.rec->>'sale_external_id' AS id FROM ${page.from}`, [page.json]);
        await followSales(tx, 'SELECT id FROM page_sales');
      }
      await followCustomers(of(CUSTOMERS_IMPORTED), of(EVENTS_IMPORTED), tx);
      await followProducts(of(PRODUCTS_IMPORTED), tx);
      // A bulk update of sales (a state, a deletion) or products (a category) may change any campaign's figures.
      if (of(DATA_QUERY_ACCEPTED).some((e) => dataQueryOf(e, 'sales') || dataQueryOf(e, 'products'))) {
        await tx.query(`INSERT INTO dirty SELECT campaign_key FROM campaigns ON CONFLICT DO NOTHING`);
      }
      await tx.query(`INSERT INTO dirty SELECT DISTINCT e.campaign_key FROM moved m JOIN campaign_events e ON e.person = m.person AND e.type = 'sent' ON CONFLICT DO NOTHING`);
    }
    await recompute(tx);
    // Empty for the next page of the same transaction (a rebuild's switch applies several).
    await tx.query('DELETE FROM dirty; DELETE FROM moved');
  },
};

/** The event types that may change campaign figures while no campaign event is known yet. */
const STARTS_COUNTING = new Set([CAMPAIGNS_IMPORTED, CAMPAIGN_EVENTS_IMPORTED, SETTINGS_CHANGED]);

const active = async (tx: ProjectionTx) => (await tx.query(`SELECT EXISTS (SELECT 1 FROM campaign_events) AS yes`)).rows[0].yes as boolean;

/** Campaign records merged in log order over what the key had ("" removes a field). */
async function importCampaigns(events: RecordedEvent[], tx: ProjectionTx): Promise<void> {
  if (events.length === 0) return;
  const page = pageRecords(events, '$1');
  await tx.query(
    `WITH g AS (
       SELECT r.rec->>'campaign_key' AS key, jsonb_merge_agg(r.rec ORDER BY c.position, r.n) AS patch, max(c.at) AS at FROM ${page.from} GROUP BY 1
     ), up AS (
       INSERT INTO campaigns AS t (campaign_key, data, updated_at)
       SELECT g.key, jsonb_strip_empty(coalesce(old.data, '{}') || g.patch), g.at FROM g LEFT JOIN campaigns old ON old.campaign_key = g.key
       ON CONFLICT (campaign_key) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at
       RETURNING t.campaign_key)
     INSERT INTO dirty SELECT campaign_key FROM up ON CONFLICT DO NOTHING`,
    [page.json],
  );
}

/** Campaign events, once per (campaign, type, identifiers, time), each with the person it resolves to now. */
async function importCampaignEvents(events: RecordedEvent[], tx: ProjectionTx): Promise<void> {
  if (events.length === 0) return;
  const page = pageRecords(events, '$1');
  await tx.query(`CREATE TEMP TABLE page_events ON COMMIT DROP AS
    SELECT r.rec->>'campaign_key' AS campaign_key, r.rec->>'type' AS type, (r.rec->>'date')::timestamptz AS at, nullif(r.rec->>'customer_id', '') AS ext,
           nullif(r.rec->>'$phone', '') AS phone, lower(nullif(r.rec->>'email', '')) AS email, nullif(r.rec->>'customer_token', '') AS token, c.at AS logged_at,
           c.position, r.n
      FROM ${page.from}`, [page.json]);
  // In log order, so that of two identical events the first one's log time is kept, live as in a rebuild.
  await queryByIndex(tx, `INSERT INTO campaign_events (campaign_key, type, identity, at, ext, phone, email, token, person, logged_at, position)
    SELECT x.campaign_key, x.type, ${EVENT_IDENTITY('x.ext', 'x.phone', 'x.email', 'x.token')}, x.at, x.ext, x.phone, x.email, x.token,
           ${PERSON('x.ext', 'x.phone', 'x.email', 'x.token')}, x.logged_at, x.position
      FROM page_events x ORDER BY x.position, x.n
    ON CONFLICT DO NOTHING`);
  await tx.query(`INSERT INTO dirty SELECT DISTINCT campaign_key FROM page_events ON CONFLICT DO NOTHING; DROP TABLE page_events`);
}

/**
 * Brings the person of these sales (a SELECT of sale_external_id) up to date with the sales and
 * customers read models; a sale whose person is new or changed moves both persons' campaigns, and
 * the campaigns that counted it must look again (its state, date or rows may have changed too).
 */
async function followSales(tx: ProjectionTx, ids: string): Promise<void> {
  await queryByIndex(tx, `WITH s AS (
      SELECT s.sale_external_id, s.customer_external_id AS ext, s.phone, s.email,
             CASE WHEN coalesce(s.customer_external_id, s.phone, s.email) IS NOT NULL THEN ${PERSON('s.customer_external_id', 's.phone', 's.email', 'NULL::text')} END AS person
        FROM (${ids}) i(id) JOIN sales s ON s.sale_external_id = i.id
    ), old AS (
      SELECT sp.sale_external_id, sp.person FROM s JOIN campaign_sale_people sp USING (sale_external_id)
    ), up AS (
      INSERT INTO campaign_sale_people AS t (sale_external_id, ext, phone, email, person) SELECT sale_external_id, ext, phone, email, person FROM s
      ON CONFLICT (sale_external_id) DO UPDATE SET ext = excluded.ext, phone = excluded.phone, email = excluded.email, person = excluded.person
      RETURNING t.sale_external_id, t.person
    ), touched AS (
      INSERT INTO dirty SELECT cs.campaign_key FROM campaign_stats cs WHERE cs.sale_ids && ARRAY(SELECT sale_external_id FROM s) ON CONFLICT DO NOTHING
    )
    INSERT INTO moved SELECT person FROM up WHERE person IS NOT NULL UNION SELECT person FROM old WHERE person IS NOT NULL ON CONFLICT DO NOTHING`);
}

/**
 * Customer imports and subscription events change who identifiers find. The records of campaign
 * events and sales that name any identifier the page names, or that stand for a customer now having
 * one of them (whose other identifiers may have changed or been forgotten), are resolved again; those
 * whose person changed move their campaigns.
 */
async function followCustomers(customers: RecordedEvent[], activity: RecordedEvent[], tx: ProjectionTx): Promise<void> {
  if (customers.length === 0 && activity.length === 0) return;
  await tx.query(`CREATE TEMP TABLE named (k text, v text) ON COMMIT DROP`);
  const name = async (events: RecordedEvent[], ids: string, where = 'true', params: unknown[] = []) => {
    if (events.length === 0) return;
    const page = pageRecords(events, '$1');
    await tx.query(
      `INSERT INTO named SELECT DISTINCT v.k, v.v FROM ${page.from}, LATERAL (VALUES ${ids}) AS v(k, v) WHERE v.v IS NOT NULL AND ${where}`,
      [page.json, ...params],
    );
  };
  await name(customers, `('x', r.rec->>'external_id'), ('p', r.rec->>'$phone'), ('m', lower(nullif(r.rec->>'email', ''))), ('t', nullif(r.rec->>'cb_token', ''))`);
  await name(
    activity,
    `('x', r.rec->>'customer_id'), ('p', r.rec->>'$phone'), ('m', lower(nullif(r.rec->>'email', ''))), ('t', nullif(r.rec->>'customer_token', ''))`,
    `r.rec->>'type' = ANY ($2::text[])`,
    [SUBSCRIPTIONS],
  );
  await queryByIndex(tx, `CREATE TEMP TABLE found ON COMMIT DROP AS
    SELECT DISTINCT 'c' || id AS person FROM (
      SELECT c.customer_id AS id FROM named n JOIN customers c ON n.k = 'x' AND c.external_id = n.v
      UNION ALL SELECT c.customer_id FROM named n JOIN customers c ON n.k = 'p' AND c.phone = n.v
      UNION ALL SELECT c.customer_id FROM named n JOIN customers c ON n.k = 'm' AND c.email = n.v
      UNION ALL SELECT c.customer_id FROM named n JOIN customers c ON n.k = 't' AND c.data->>'cb_token' = n.v AND c.data ? 'cb_token'
      UNION ALL SELECT f.customer_id FROM named n JOIN forgotten_identifiers f
                 ON f.kind = CASE n.k WHEN 'x' THEN 'external_id' WHEN 'p' THEN 'phone' WHEN 'm' THEN 'email' END AND f.hash = encode(sha256(convert_to(n.v, 'UTF8')), 'hex')
    ) ids WHERE id IS NOT NULL`);
  await queryByIndex(tx, `WITH cand AS (
      SELECT e.campaign_key, e.type, e.identity, e.at, e.person AS old, ${PERSON('e.ext', 'e.phone', 'e.email', 'e.token')} AS person FROM (
        SELECT e.* FROM named n JOIN campaign_events e ON n.k = 'x' AND e.ext = n.v
        UNION SELECT e.* FROM named n JOIN campaign_events e ON n.k = 'p' AND e.phone = n.v
        UNION SELECT e.* FROM named n JOIN campaign_events e ON n.k = 'm' AND e.email = n.v
        UNION SELECT e.* FROM named n JOIN campaign_events e ON n.k = 't' AND e.token = n.v
        UNION SELECT e.* FROM found f JOIN campaign_events e ON e.person = f.person) e
    ), changed AS (
      UPDATE campaign_events e SET person = cand.person FROM cand
       WHERE e.campaign_key = cand.campaign_key AND e.type = cand.type AND e.identity = cand.identity AND e.at = cand.at AND cand.person <> cand.old
      RETURNING e.campaign_key)
    INSERT INTO dirty SELECT DISTINCT campaign_key FROM changed ON CONFLICT DO NOTHING`);
  await queryByIndex(tx, `WITH cand AS (
      SELECT sp.sale_external_id, sp.person AS old, ${PERSON('sp.ext', 'sp.phone', 'sp.email', 'NULL::text')} AS person FROM (
        SELECT sp.* FROM named n JOIN campaign_sale_people sp ON n.k = 'x' AND sp.ext = n.v
        UNION SELECT sp.* FROM named n JOIN campaign_sale_people sp ON n.k = 'p' AND sp.phone = n.v
        UNION SELECT sp.* FROM named n JOIN campaign_sale_people sp ON n.k = 'm' AND sp.email = n.v
        UNION SELECT sp.* FROM found f JOIN campaign_sale_people sp ON sp.person = f.person) sp
    ), changed AS (
      UPDATE campaign_sale_people sp SET person = cand.person FROM cand WHERE sp.sale_external_id = cand.sale_external_id AND cand.person IS DISTINCT FROM cand.old
      RETURNING cand.sale_external_id, cand.old, cand.person
    ), counted AS (
      INSERT INTO dirty SELECT cs.campaign_key FROM campaign_stats cs WHERE cs.sale_ids && ARRAY(SELECT sale_external_id FROM changed) ON CONFLICT DO NOTHING
    )
    INSERT INTO moved SELECT old FROM changed WHERE old IS NOT NULL UNION SELECT person FROM changed WHERE person IS NOT NULL ON CONFLICT DO NOTHING`);
  await tx.query('DROP TABLE named; DROP TABLE found');
}

/** A product's category is part of the figures of the campaigns that counted it. */
async function followProducts(products: RecordedEvent[], tx: ProjectionTx): Promise<void> {
  if (products.length === 0) return;
  const page = pageRecords(products, '$1');
  await tx.query(
    `INSERT INTO dirty SELECT cs.campaign_key FROM campaign_stats cs
      WHERE cs.product_ids && ARRAY(SELECT DISTINCT r.rec->>'external_id' FROM ${page.from}) ON CONFLICT DO NOTHING`,
    [page.json],
  );
}

/**
 * The marked campaigns' statistics computed again, and their activation (which orders the list); with
 * them, from the same statement, their daily series and their counted sales by time, replaced whole.
 */
async function recompute(tx: ProjectionTx): Promise<void> {
  const { rows } = await tx.query<{ keys: string[] }>(`SELECT coalesce(array_agg(d.campaign_key), '{}') AS keys FROM dirty d JOIN campaigns USING (campaign_key)`);
  if (rows[0].keys.length === 0) return;
  await tx.query(`CREATE TEMP TABLE result ON COMMIT DROP AS ${STATS}`, [rows[0].keys]);
  await tx.query(`UPDATE campaigns cp SET activation = r.activation FROM result r WHERE cp.campaign_key = r.campaign_key AND cp.activation IS DISTINCT FROM r.activation;
    INSERT INTO campaign_stats AS t (campaign_key, stats, record, modified_at, sale_ids, product_ids, reached, figured)
    SELECT campaign_key, stats, record, modified_at, sale_ids, product_ids, reached,
           encode(sha256(convert_to(concat(record, '|', coalesce(sale_rows::text, '-'), '|', coalesce(category_rows::text, '-'), '|', reached), 'UTF8')), 'hex') FROM result
    ON CONFLICT (campaign_key) DO UPDATE SET stats = excluded.stats, record = excluded.record, modified_at = excluded.modified_at, sale_ids = excluded.sale_ids,
      product_ids = excluded.product_ids, reached = excluded.reached, figured = excluded.figured;
    DELETE FROM campaign_days WHERE campaign_key IN (SELECT campaign_key FROM result);
    INSERT INTO campaign_days (campaign_key, day, sent, delivered, opens, clicks, unsubscribes, spam_reports, bounces, unique_opens, unique_clicks, total_sales, total_revenue, sales_for_conversion)
    SELECT r.campaign_key, d.* FROM result r CROSS JOIN LATERAL json_to_recordset(r.days) AS d(day date, sent bigint, delivered bigint, opens bigint, clicks bigint, unsubscribes bigint,
      spam_reports bigint, bounces bigint, unique_opens bigint, unique_clicks bigint, total_sales bigint, total_revenue bigint, sales_for_conversion bigint);
    DELETE FROM campaign_sales WHERE campaign_key IN (SELECT campaign_key FROM result);
    INSERT INTO campaign_sales (campaign_key, at, day, member, converted, revenue, units, own_units, own_revenue, other_units, other_revenue)
    SELECT r.campaign_key, s.* FROM result r CROSS JOIN LATERAL json_to_recordset(r.sale_rows) AS s(at timestamptz, day date, member integer, converted boolean, revenue bigint,
      units numeric, own_units numeric, own_revenue numeric, other_units numeric, other_revenue numeric);
    DELETE FROM campaign_sale_categories WHERE campaign_key IN (SELECT campaign_key FROM result);
    INSERT INTO campaign_sale_categories (campaign_key, at, day, title, units, revenue, discount)
    SELECT r.campaign_key, g.* FROM result r CROSS JOIN LATERAL json_to_recordset(r.category_rows) AS g(at timestamptz, day date, title text, units numeric, revenue numeric, discount numeric);
    DROP TABLE result`);
}
