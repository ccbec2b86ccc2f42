import { campaignsProjection, customersProjection, productsProjection, rebuildProjection, salesProjection, waitForProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';

type Json = Record<string, any>;

// One worked scenario, every figure computed by hand below, imported in three orders.
const products = [
  { external_id: 'P-1', title: 'Runner', category: ['Shoes'] },
  { external_id: 'P-2', title: 'Walker', category: 'Shoes' },
  { external_id: 'P-3', title: 'Tote', category: ['Bags', 'Leather'] },
  { external_id: 'P-4', title: 'Gift card' },
];
const customers = [
  { external_id: 'K-1', email: 'k1@example.com' },
  { external_id: 'K-2', email: 'k2@example.com', phone_number: '+358401000002' },
  { external_id: 'K-3', email: 'k3@example.com' },
  { external_id: 'K-4', email: 'k4@example.com' },
  { external_id: 'K-5', email: 'k5@example.com' },
  { external_id: 'K-6', email: 'k6@example.com' },
  // K-7 is first a guest known by e-mail only; an import later gives that guest its external id.
  { email: 'k7@example.com', first_name: 'Guest' },
];
const k7Joins = [{ external_id: 'K-7', email: 'k7@example.com' }];
const k6Forgotten = [{ external_id: 'K-6', is_forgotten: true }];
const campaigns = [
  { campaign_key: 'A', kind: 'automated-email', automated: 'true', name: 'Welcome', state: 'ACTIVE', activated_at: '2026-03-01T10:00:00.000000Z', product_ids: ['P-1', 'P-3'],
    campaign_tags: [{ id: 7, label: 'onboarding' }], folder: { id: '3', name: 'Lifecycle' }, permissions: { marketing_permission: 'can_email' }, utm_campaign: 'welcome' },
  { campaign_key: 'B', kind: 'email', automated: false, name: 'Spring sale', state: 'active', activated_at: '2026-03-10', product_ids: 'P-2' },
  { campaign_key: 'D', kind: 'email', name: 'Not sent yet', state: 'draft' },
  { campaign_key: 'E', kind: 'EXT', name: 'External', state: 'active', activated_at: '2026-03-01' },
];
const at = (day: string, time = '10:00') => `2026-03-${day}T${time}:00Z`;
const campaignEvents = [
  ...['K-1', 'K-3', 'K-4'].map((id) => ({ campaign_key: 'A', type: 'sent', date: at('01'), customer_id: id })),
  { campaign_key: 'A', type: 'sent', date: at('01'), customer_id: 'K-1' }, // the same event twice counts once
  { campaign_key: 'A', type: 'SENT', date: at('01'), email: 'K2@example.com' }, // K-2, found by e-mail
  { campaign_key: 'A', type: 'sent', date: at('01'), email: 'guest@example.com' }, // no customer: a person of its own
  { campaign_key: 'A', type: 'sent', date: at('01'), email: 'k6@example.com' }, // K-6, forgotten later
  { campaign_key: 'A', type: 'sent', date: at('01'), customer_id: 'K-7' }, // unknown until K-7 joins
  { campaign_key: 'A', type: 'delivered', date: at('01', '10:01'), customer_id: 'K-1' },
  { campaign_key: 'A', type: 'open', date: at('01', '12:00'), customer_id: 'K-1' },
  { campaign_key: 'A', type: 'opens', date: at('01', '12:00'), customer_id: 'K-1' }, // the same open again
  { campaign_key: 'A', type: 'open', date: at('02', '09:00'), customer_id: 'K-1' },
  { campaign_key: 'A', type: 'click', date: at('02', '09:05'), customer_id: 'K-1' },
  { campaign_key: 'A', type: 'delivered', date: at('01', '10:01'), phone_number: '+358 40 1000002' }, // K-2, found by phone
  { campaign_key: 'A', type: 'unsubscribe', date: at('03'), customer_id: 'K-2' },
  { campaign_key: 'A', type: 'bounce', date: at('01', '10:02'), customer_id: 'K-3' },
  { campaign_key: 'A', type: 'delivered', date: at('01', '10:01'), customer_id: 'K-4' },
  { campaign_key: 'A', type: 'spam-report', date: at('04'), customer_id: 'K-4' },
  { campaign_key: 'A', type: 'delivered', date: at('01', '10:01'), email: 'guest@example.com' },
  { campaign_key: 'A', type: 'open', date: at('05', '08:00'), email: 'guest@example.com' },
  { campaign_key: 'A', type: 'open', date: at('06'), customer_id: 'K-5' }, // not in A's audience: counted as an open only
  { campaign_key: 'B', type: 'sent', date: at('10'), customer_id: 'K-5' },
  { campaign_key: 'B', type: 'sent', date: at('10'), customer_id: 'K-1' },
  { campaign_key: 'B', type: 'click', date: at('10', '12:00'), customer_id: 'K-5' },
  { campaign_key: 'D', type: 'sent', date: at('01'), customer_id: 'K-1' },
  { campaign_key: 'E', type: 'sent', date: at('01'), customer_id: 'K-1' },
];
const row = (sale: string, product: string, quantity: number, unit: number, extra: Json = {}) => ({ sale_external_id: sale, product_id: product, quantity, unit_price: unit, ...extra });
const sales = [
  // S1: K-1 on day 4 of A: 2 × 10.00 − 1.00 and 1 × 5.00, sale discount 2.00 → 2200.
  { sale_external_id: 'S1', sale_date: '2026-03-05T12:00:00.000000Z', sale_customer_id: 'K-1', sale_discount: 200 },
  row('S1', 'P-1', 2, 1000, { discount: -100 }),
  row('S1', 'P-2', 1, 500),
  // S2: K-2 by e-mail on A's day 30 (inside): 3000.
  { sale_external_id: 'S2', sale_date: '2026-03-31T23:00:00.000000Z', sale_email: 'k2@example.com' },
  row('S2', 'P-3', 1, 3000),
  // S3: K-3 on day 31 (outside); S4: K-4 the day before activation (outside).
  { sale_external_id: 'S3', sale_date: '2026-04-01T00:30:00.000000Z', sale_customer_id: 'K-3' },
  row('S3', 'P-1', 1, 1000),
  { sale_external_id: 'S4', sale_date: '2026-02-28T23:00:00.000000Z', sale_customer_id: 'K-4' },
  row('S4', 'P-1', 1, 1000),
  // S5 cancelled and S6 closed: left out.
  { sale_external_id: 'S5', sale_date: '2026-03-10T10:00:00.000000Z', sale_customer_id: 'K-4', sale_state: 'CANCELLED' },
  row('S5', 'P-1', 1, 1000),
  { sale_external_id: 'S6', sale_date: '2026-03-11T10:00:00.000000Z', sale_customer_id: 'K-4', sale_state: 'closed' },
  row('S6', 'P-1', 1, 1000),
  // S8: K-6 by customer id, in USD at 2 dollars a euro: 40.00 → 2000; its buyer is forgotten later.
  { sale_external_id: 'S8', sale_date: '2026-03-15T10:00:00.000000Z', sale_customer_id: 'K-6', sale_currency: 'USD', sale_exchange_rate: 2 },
  { sale_external_id: 'S8', product_id: 'P-4', quantity: 1, unit_price_in_currency: 4000 },
  // S9: K-1 on March 20: 1000, and a returned row (price 0, tag CANCELED) that counts nothing.
  { sale_external_id: 'S9', sale_date: '2026-03-20T10:00:00.000000Z', sale_customer_id: 'K-1' },
  row('S9', 'P-1', 1, 1000),
  row('S9', 'P-3', 1, 0, { tags: ['CANCELED'] }),
  // S10: K-5 two days after clicking B: 3 × 7.00.
  { sale_external_id: 'S10', sale_date: '2026-03-12T10:00:00.000000Z', sale_customer_id: 'K-5' },
  row('S10', 'P-2', 3, 700),
  // S11: by K-7's e-mail, whose sent event named its external id: one person once K-7 joins.
  { sale_external_id: 'S11', sale_date: '2026-03-25T10:00:00.000000Z', sale_email: 'k7@example.com' },
  row('S11', 'P-2', 1, 1500),
];
// S7: the guest's, counted at first, cancelled by a later import of it.
const s7 = (state: string) => [{ sale_external_id: 'S7', sale_date: '2026-03-06T10:00:00.000000Z', sale_email: 'guest@example.com', sale_state: state }, row('S7', 'P-2', 1, 800)];

const events = (counts: number[]) => ['sent', 'delivered', 'opens', 'clicks', 'unsubscribes', 'spam_reports', 'bounces'].map((name, i) => ({ name, count: counts[i] }));

const EXPECTED: Record<string, Json> = {
  A: {
    campaign_key: 'A', kind: 'automated-email', automated: true, name: 'Welcome', state: 'active', activated_at: '2026-03-01T10:00:00.000000Z', utm_campaign: 'welcome',
    product_ids: ['P-1', 'P-3'], campaign_tags: [{ id: '7', label: 'onboarding' }], folder: { id: 3, name: 'Lifecycle' }, permissions: { marketing_permission: 'can_email' },
    stats: {
      date_range: { start: '2026-03-01T10:00:00.000000Z', end: '2026-03-31T10:00:00.000000Z' },
      // K-1, K-2, K-3, K-4, the guest, K-6, K-7.
      audience_size: 7,
      // K-1 (delivered, opens, click), K-2 (delivered, unsubscribe), K-3 (bounce), K-4 (delivered, spam report), the guest (delivered, open).
      audience_with_events: 5,
      // K-1 (S1, S9), K-2 (S2), K-6 (S8), K-7 (S11); the guest's S7 was cancelled.
      audience_with_sales: 4,
      // S1 and S9: K-1 opened on March 1 before buying; the other buyers never opened or clicked.
      sales_for_conversion: 2,
      // K-3: a bounce and nothing delivered, opened or clicked.
      audience_unreachable: 1,
      // K-6 and K-7: reachable, and no open, click, unsubscribe or spam report.
      audience_no_reaction: 2,
      events: events([7, 4, 4, 1, 1, 1, 1]),
      sales: {
        date_range: { start: '2026-03-01', end: '2026-03-31' },
        total_sales: 5,
        total_revenue: 2200 + 3000 + 2000 + 1000 + 1500,
        // S1 2 + 1, S2 1, S8 1, S9 1 + 0 (returned), S11 1.
        total_products_count: 7,
        average_products_count: 1.4,
        // P-1 and P-3: S1 2 / 1900, S2 1 / 3000, S9 1 / 1000 and the returned 0 / 0.
        campaign_product_count: 4,
        campaign_product_revenue: 5900,
        // P-2 and P-4: S1 1 / 500, S8 1 / 2000, S11 1 / 1500.
        other_product_count: 3,
        other_product_revenue: 4000,
        product_categories: [
          { title: 'Shoes', units: 5, revenue: 4900, discount: 100 },
          { title: 'Bags', units: 1, revenue: 3000, discount: 0 },
          { title: '', units: 1, revenue: 2000, discount: 0 },
        ],
      },
      // Beyond the spec. Reached: the audience less the unreachable, 7 − 1 (K-3) = 6: the rates' denominator.
      // Opens and clicks of audience members, each event once as in `events`: K-1 opened on March 1 (twice
      // in the file, one event) and March 2, the guest on March 5: 2 unique, 3 in all (K-5's open of March 6
      // is in events.opens, but K-5 is no member). K-1's click: 1 and 1. Converted: buyers with a counted
      // sale at or after their first open or click, K-1 only (S1, S9): 1.
      performance: {
        audience_reached: 6,
        unique_opens: 2,
        total_opens: 3,
        unique_clicks: 1,
        total_clicks: 1,
        audience_converted: 1,
        open_rate: 0.3333, // 2 / 6, to 4 decimals
        click_rate: 0.1667, // 1 / 6 = 0.16666…
        conversion_rate: 0.1667, // 1 / 6
        revenue_per_recipient: 1616.67, // total_revenue 9700 / 6 = 1616.666… (cents, to 2 decimals)
      },
    },
  },
  B: {
    campaign_key: 'B', kind: 'email', automated: false, name: 'Spring sale', state: 'active', activated_at: '2026-03-10T00:00:00.000000Z', product_ids: ['P-2'],
    campaign_tags: [], folder: null, permissions: null,
    stats: {
      date_range: null,
      audience_size: 2,
      audience_with_events: 1,
      audience_with_sales: 2,
      // S10: K-5 clicked on March 10 and bought on March 12; K-1 did nothing with B.
      sales_for_conversion: 1,
      audience_unreachable: 0,
      audience_no_reaction: 1,
      events: events([2, 0, 0, 1, 0, 0, 0]),
      sales: {
        date_range: { start: '2026-03-10', end: '2026-04-09' },
        // S9 (K-1) and S10 (K-5); S1 was before B.
        total_sales: 2,
        total_revenue: 1000 + 2100,
        total_products_count: 4,
        average_products_count: 2,
        campaign_product_count: 3,
        campaign_product_revenue: 2100,
        other_product_count: 1,
        other_product_revenue: 1000,
        product_categories: [
          { title: 'Shoes', units: 4, revenue: 3100, discount: 0 },
          { title: 'Bags', units: 0, revenue: 0, discount: 0 },
        ],
      },
      // Reached: K-5 and K-1, no bounce: 2. No opens; K-5's click: 1 and 1. Converted: K-5 (S10 after the click): 1.
      performance: {
        audience_reached: 2,
        unique_opens: 0,
        total_opens: 0,
        unique_clicks: 1,
        total_clicks: 1,
        audience_converted: 1,
        open_rate: 0, // 0 / 2
        click_rate: 0.5, // 1 / 2
        conversion_rate: 0.5, // 1 / 2
        revenue_per_recipient: 1550, // 3100 / 2
      },
    },
  },
  D: { campaign_key: 'D', kind: 'email', automated: false, name: 'Not sent yet', state: 'draft', campaign_tags: [], folder: null, permissions: null, stats: null },
  E: { campaign_key: 'E', kind: 'EXT', automated: false, name: 'External', state: 'active', activated_at: '2026-03-01T00:00:00.000000Z', campaign_tags: [], folder: null, permissions: null, stats: null },
};

type Step = [string, string, unknown[]];
const ORDERS: Record<string, Step[]> = {
  'products, customers, campaigns, events, sales': [
    ['products', 'products', products], ['customers', 'customers', customers], ['campaigns', 'campaigns', campaigns], ['campaigns/events', 'events', campaignEvents],
    ['sales', 'sales', [...sales, ...s7('COMPLETE')]], ['sales', 'sales', s7('CANCELLED')], ['customers', 'customers', k7Joins], ['customers', 'customers', k6Forgotten],
  ],
  'sales first, campaigns and products last': [
    ['sales', 'sales', s7('COMPLETE')], ['sales', 'sales', sales], ['sales', 'sales', s7('canceled')], ['campaigns/events', 'events', campaignEvents],
    ['customers', 'customers', customers], ['customers', 'customers', k7Joins], ['customers', 'customers', k6Forgotten], ['campaigns', 'campaigns', campaigns], ['products', 'products', products],
  ],
  'events first, then everything interleaved': [
    ['campaigns/events', 'events', campaignEvents.slice(0, 12)], ['customers', 'customers', customers.slice(0, 3)], ['sales', 'sales', sales.slice(0, 11)],
    ['campaigns', 'campaigns', campaigns.slice(0, 2)], ['products', 'products', products], ['customers', 'customers', [...customers.slice(3), ...k7Joins]],
    ['campaigns/events', 'events', campaignEvents.slice(12)], ['sales', 'sales', [...sales.slice(11), ...s7('COMPLETE')]], ['customers', 'customers', k6Forgotten],
    ['campaigns', 'campaigns', campaigns.slice(2)], ['sales', 'sales', s7('CANCELLED')],
  ],
};

describe('campaign statistics', () => {
  let api: TestApi;
  let token: string;

  const open = async (env: Record<string, string> = {}) => {
    api = await startTestApi({ projections: [customersProjection, productsProjection, salesProjection, campaignsProjection], env });
    token = (await seedUserToken(api.rt, 'analyst', ['staff'])).token;
  };
  afterEach(async () => {
    await api?.close();
  });

  const send = (method: string, path: string, body?: unknown) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

  async function upload(path: string, key: string, records: unknown[]) {
    const res = await send('POST', `/api/${path}/upload/`, { [key]: records });
    expect([path, res.status, res.body.rejected, res.body.errors]).toEqual([path, 200, 0, []]);
    return res.body.run_id as string;
  }
  const settle = async () => waitForProjection(api.rt.pool, 'campaigns', await api.rt.store.headPosition(), { timeoutMs: 30_000 });
  const statistics = async (query = '') => {
    const res = await send('GET', `/api/campaign/actions/${query}`);
    expect(res.status).toBe(200);
    return res.body as { campaigns: Json[]; count: number; next: string | null; next_url: string | null };
  };
  /** The records without cache_modified_at (checked apart: it is a log time). */
  const figures = (list: Json[]) => Object.fromEntries(list.map((c) => [c.campaign_key, c.stats ? { ...c, stats: { ...c.stats, cache_modified_at: undefined } } : c]));

  it.each(Object.keys(ORDERS))('gives every figure of the worked scenario, imported %s', async (order) => {
    await open();
    for (const [path, key, records] of ORDERS[order]) await upload(path, key, records);
    await settle();
    const page = await statistics();
    // D has no activated_at: its first sent event (March 1, 10:00, as A) orders it; ties go by key.
    expect(page.campaigns.map((c) => c.campaign_key)).toEqual(['B', 'D', 'A', 'E']);
    const got = figures(page.campaigns);
    for (const key of Object.keys(EXPECTED)) {
      expect([key, got[key]]).toEqual([key, { ...EXPECTED[key], ...(EXPECTED[key].stats ? { stats: { ...EXPECTED[key].stats, cache_modified_at: undefined } } : {}) }]);
    }
    expect(page).toMatchObject({ count: 4, next: null, next_url: null });
    // Fields in the spec's order, other keys after them, the statistics last.
    const a = page.campaigns.find((c) => c.campaign_key === 'A')!;
    expect(Object.keys(a)).toEqual(['campaign_key', 'kind', 'automated', 'name', 'state', 'activated_at', 'utm_campaign', 'campaign_tags', 'folder', 'permissions', 'product_ids', 'stats']);
    expect(Object.keys(a.stats)).toEqual(['date_range', 'audience_size', 'audience_with_events', 'audience_with_sales', 'sales_for_conversion', 'audience_unreachable', 'audience_no_reaction', 'events', 'sales', 'cache_modified_at', 'performance']);
    // cache_modified_at: the log time of the latest input the figures count (here the last import of a counted sale or of the campaign).
    for (const c of page.campaigns.filter((x) => x.stats)) expect(Date.parse(c.stats.cache_modified_at)).toBeLessThanOrEqual(Date.now());
    // A rebuild from the log gives the same records, field for field, and the same daily series and counted sales by time.
    const tables = async () => Promise.all([
      `SELECT campaign_key, stats::text, modified_at, reached FROM campaign_stats ORDER BY 1`,
      `SELECT * FROM campaign_days ORDER BY campaign_key, day`,
      `SELECT * FROM campaign_sales ORDER BY campaign_key, at, revenue`,
      `SELECT * FROM campaign_sale_categories ORDER BY campaign_key, at, title`,
    ].map(async (sql) => (await api.rt.pool.query(sql)).rows));
    const before = await tables();
    expect(before.map((rows) => rows.length)).toEqual([4, 31 + 31, 5 + 2, 6 + 3]);
    await rebuildProjection(api.rt.runnerDeps(), campaignsProjection);
    expect(await tables()).toEqual(before);
  });

  it('follows the log within one import: a run is completed once the statistics include it, and a cancelled sale leaves them', async () => {
    await open();
    await upload('customers', 'customers', customers);
    await upload('campaigns', 'campaigns', campaigns);
    const run = await upload('campaigns/events', 'events', campaignEvents);
    await eventually(async () => {
      const status = await send('GET', `/api/runs/${run}/`);
      if (status.body.state !== 'completed') throw new Error(status.body.state);
    });
    // Completed means counted: the audience is there at once.
    expect((await statistics('?keys=A')).campaigns[0].stats.audience_size).toBe(7);
    await upload('sales', 'sales', s7('COMPLETE'));
    await settle();
    const counted = (await statistics('?keys=A')).campaigns[0].stats;
    expect([counted.audience_with_sales, counted.sales.total_revenue]).toEqual([1, 800]);
    await upload('sales', 'sales', s7('CANCELLED'));
    await settle();
    const left = (await statistics('?keys=A')).campaigns[0].stats;
    expect([left.audience_with_sales, left.sales.total_sales, left.sales.total_revenue]).toEqual([0, 0, 0]);
    expect(Date.parse(left.cache_modified_at)).toBeGreaterThanOrEqual(Date.parse(counted.cache_modified_at));
  });

  it('keeps a list page until the read model moves; a request with Min-Position never gets an older page', async () => {
    // Kept for a minute here, so that only an announcement can make it go on a slow machine.
    await open({ MDS_CAMPAIGN_PAGES_KEEP_MS: '60000' });
    const completed = async (run: string) => {
      let body: Json = {};
      await eventually(async () => {
        body = (await send('GET', `/api/runs/${run}/`)).body;
        if (body.state !== 'completed') throw new Error(body.state);
      });
      return body.log_position as number;
    };
    await completed(await upload('campaigns', 'campaigns', campaigns));
    const name = async (headers: Record<string, string> = {}) => {
      const res = await api.call('/api/campaign/actions/?keys=B', { headers: { authorization: `Bearer ${token}`, ...headers } });
      expect(res.status).toBe(200);
      return res.body.campaigns[0].name as string;
    };
    expect(await name()).toBe('Spring sale');
    // Changed behind the projection's back (no announcement): the kept page is answered…
    await api.rt.pool.query(`UPDATE campaign_stats SET record = replace(record, 'Spring sale', 'Changed quietly') WHERE campaign_key = 'B'`);
    expect(await name()).toBe('Spring sale');
    // …until the campaigns projection announces a move.
    await api.rt.pool.query(`SELECT pg_notify('mds_checkpoints', 'campaigns:1')`);
    await eventually(async () => expect(await name()).toBe('Changed quietly'));
    // An import: a client naming the run's position reads the rename at once, whatever was kept.
    const position = await completed(await upload('campaigns', 'campaigns', [{ ...campaigns[1], name: 'Spring sale, renamed' }]));
    expect(await name({ 'min-position': String(position) })).toBe('Spring sale, renamed');
    await eventually(async () => expect(await name()).toBe('Spring sale, renamed'));
  });

  it('refuses bad campaign and campaign event records by index, and bad query parameters', async () => {
    await open();
    const res = await send('POST', '/api/campaigns/upload/', {
      campaigns: [{ campaign_key: 'ok-1', name: 'Fine' }, { name: 'no key' }, { campaign_key: 'has space' }, { campaign_key: 'F', folder: { id: 'x' } }, { campaign_key: 'G', automated: 'maybe' }],
    });
    expect(res.status).toBe(200);
    expect(res.body.errors.map((e: Json) => [e.index, e.field, e.code])).toEqual([[1, 'campaign_key', 'required'], [2, 'campaign_key', 'invalid_pattern'], [3, 'folder', 'invalid_folder'], [4, 'automated', 'invalid_boolean']]);
    const ev = await send('POST', '/api/campaigns/events/upload/', {
      events: [{ campaign_key: 'ok-1', type: 'open', date: '2026-03-01', email: 'x@example.com' }, { campaign_key: 'ok-1', type: 'read', date: '2026-03-01', email: 'x@example.com' }, { campaign_key: 'ok-1', type: 'open', date: '2026-03-01' }, { campaign_key: 'ok-1', type: 'open', email: 'x@example.com' }],
    });
    expect(ev.body.errors.map((e: Json) => [e.index, e.field, e.code])).toEqual([[1, 'type', 'unknown_campaign_event_type'], [2, null, 'missing_identifier'], [3, 'date', 'required']]);
    for (const [query, message] of [['?limit=101', /^limit must be a whole number from 1 to 100/], ['?limit=0', /^limit must be/], ['?order=newest', /^order must be ascending or descending$/], ['?from=nonsense', /^from must be the next of an earlier page$/]] as const) {
      const bad = await send('GET', `/api/campaign/actions/${query}`);
      expect([query, bad.status, bad.body.error?.code]).toEqual([query, 400, 'invalid_request']);
      expect(bad.body.error.message).toMatch(message);
    }
  });

  it('pages 250 campaigns in both orders, each exactly once, also with campaigns imported between pages; keys filters', async () => {
    await open();
    const day = (n: number) => new Date(Date.UTC(2025, 0, 1) + Math.floor(n / 3) * 86_400_000).toISOString();
    // Three campaigns a day share an activation (ties go by key); ten have none.
    await upload('campaigns', 'campaigns', Array.from({ length: 250 }, (_, n) => ({ campaign_key: `C${String(n).padStart(3, '0')}`, name: `C${n}`, ...(n < 240 ? { activated_at: day(n) } : {}) })));
    await settle();
    for (const order of ['descending', 'ascending']) {
      const seen: string[] = [];
      let next: string | null = `/api/campaign/actions/?limit=30&order=${order}`;
      let pages = 0;
      while (next) {
        const res = await send('GET', next);
        expect(res.status).toBe(200);
        seen.push(...res.body.campaigns.map((c: Json) => c.campaign_key));
        expect(res.body.count).toBe(res.body.campaigns.length);
        expect(Object.keys(res.body)).toEqual(['campaigns', 'count', 'next', 'next_url']);
        if (pages++ === 2) {
          // New campaigns, before and after the cursor, while paging: none of the 250 is skipped or repeated.
          await upload('campaigns', 'campaigns', [{ campaign_key: `N-${order}-1`, activated_at: '2030-01-01' }, { campaign_key: `N-${order}-2`, activated_at: '2000-01-01' }]);
          await settle();
        }
        next = res.body.next_url;
      }
      const old = seen.filter((k) => k.startsWith('C'));
      expect(new Set(old).size).toBe(250);
      expect(old.length).toBe(250);
      const expectedOrder = [...old].sort((a, b) => {
        const da = Number(a.slice(1)) < 240 ? day(Number(a.slice(1))) : '';
        const db = Number(b.slice(1)) < 240 ? day(Number(b.slice(1))) : '';
        // Campaigns without an activation come last in either order.
        if ((da === '') !== (db === '')) return da === '' ? 1 : -1;
        return (da < db ? -1 : da > db ? 1 : a < b ? -1 : 1) * (order === 'ascending' ? 1 : -1);
      });
      expect(old).toEqual(expectedOrder);
    }
    const some = await statistics('?keys=C007,C123,nope,C007');
    expect(some.campaigns.map((c) => c.campaign_key)).toEqual(['C123', 'C007']);
    expect((await statistics('?limit=5')).count).toBe(5);
  });
});

describe('campaign statistics beyond the spec: the daily series and the sales range, on the worked scenario', () => {
  let api: TestApi;
  let token: string;
  beforeAll(async () => {
    api = await startTestApi({ projections: [customersProjection, productsProjection, salesProjection, campaignsProjection] });
    token = (await seedUserToken(api.rt, 'series', ['staff'])).token;
    for (const [path, key, records] of ORDERS['products, customers, campaigns, events, sales']) {
      const res = await send('POST', `/api/${path}/upload/`, { [key]: records });
      expect([path, res.status, res.body.rejected]).toEqual([path, 200, 0]);
    }
    await waitForProjection(api.rt.pool, 'campaigns', await api.rt.store.headPosition(), { timeoutMs: 30_000 });
  });
  afterAll(async () => {
    await api?.close();
  });
  const send = (method: string, path: string, body?: unknown) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const ok = async (path: string) => {
    const res = await send('GET', path);
    expect([path, res.status]).toEqual([path, 200]);
    return res.body as Json;
  };
  const refused = async (path: string, status = 400) => {
    const res = await send('GET', path);
    expect([path, res.status, res.body.error?.code]).toEqual([path, status, status === 404 ? 'not_found' : 'invalid_request']);
    return res.body.error.message as string;
  };

  const ZERO = { sent: 0, delivered: 0, opens: 0, clicks: 0, unsubscribes: 0, spam_reports: 0, bounces: 0, unique_opens: 0, unique_clicks: 0, total_sales: 0, total_revenue: 0, sales_for_conversion: 0 };
  /** `count` days from `first` (UTC dates), zeros but for the days named. */
  const series = (first: string, count: number, figures: Record<string, Partial<typeof ZERO>>) =>
    Array.from({ length: count }, (_, i) => {
      const date = new Date(Date.parse(`${first}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10);
      return { date, ...ZERO, ...figures[date] };
    });
  // A's days, by hand from the scenario (settings' zone UTC): the window is March 1 to 31 (activation
  // day to 30 days after), every event of A falls in it. Events once per (person, type, time), as in
  // stats.events; unique_*: audience members that day; sales: A's counted sales of that day.
  const A_DAYS = series('2026-03-01', 31, {
    // Sent to 7 (K-1's twice, once); delivered to K-1, K-2 (by phone), K-4 and the guest; K-1's open at
    // 12:00 (sent twice, once); K-3's bounce.
    '2026-03-01': { sent: 7, delivered: 4, opens: 1, bounces: 1, unique_opens: 1 },
    '2026-03-02': { opens: 1, clicks: 1, unique_opens: 1, unique_clicks: 1 }, // K-1
    '2026-03-03': { unsubscribes: 1 }, // K-2
    '2026-03-04': { spam_reports: 1 }, // K-4
    // The guest's open; S1, K-1's, after K-1's open of March 1: converted.
    '2026-03-05': { opens: 1, unique_opens: 1, total_sales: 1, total_revenue: 2200, sales_for_conversion: 1 },
    '2026-03-06': { opens: 1 }, // K-5's open: no member of A, so no unique open (the guest's S7 was cancelled)
    '2026-03-15': { total_sales: 1, total_revenue: 2000 }, // S8, K-6: no open or click
    '2026-03-20': { total_sales: 1, total_revenue: 1000, sales_for_conversion: 1 }, // S9, K-1
    '2026-03-25': { total_sales: 1, total_revenue: 1500 }, // S11, K-7
    '2026-03-31': { total_sales: 1, total_revenue: 3000 }, // S2, K-2 at 23:00: day 30
  });
  // B: March 10 to April 9; both sends and K-5's click on March 10; S10 (K-5, after the click) and S9 (K-1).
  const B_DAYS = series('2026-03-10', 31, {
    '2026-03-10': { sent: 2, clicks: 1, unique_clicks: 1 },
    '2026-03-12': { total_sales: 1, total_revenue: 2100, sales_for_conversion: 1 },
    '2026-03-20': { total_sales: 1, total_revenue: 1000 },
  });

  it('gives each day of the window, zeros included, adding up to the statistics', async () => {
    const a = await ok('/api/campaign/actions/A/daily/');
    expect(Object.keys(a)).toEqual(['campaign_key', 'timezone', 'days', 'count', 'next', 'next_url']);
    expect(a).toEqual({ campaign_key: 'A', timezone: 'UTC', days: A_DAYS, count: 31, next: null, next_url: null });
    expect(await ok('/api/campaign/actions/B/daily')).toMatchObject({ days: B_DAYS, count: 31, next: null });
    // The beta path answers the same.
    expect(await ok('/api/campaigns/statistics/A/daily/')).toEqual(a);
    // Each event count adds up to stats.events, the sales to stats.sales.
    const stats = Object.fromEntries((await ok('/api/campaign/actions/?keys=A,B')).campaigns.map((c: Json) => [c.campaign_key, c.stats]));
    for (const [key, days] of [['A', A_DAYS], ['B', B_DAYS]] as const) {
      const sum = (field: keyof typeof ZERO) => days.reduce((n, d) => n + d[field], 0);
      expect([key, stats[key].events.map((e: Json) => sum(e.name))]).toEqual([key, stats[key].events.map((e: Json) => e.count)]);
      expect([key, sum('total_sales'), sum('total_revenue'), sum('sales_for_conversion')]).toEqual([key, stats[key].sales.total_sales, stats[key].sales.total_revenue, stats[key].sales_for_conversion]);
    }
    // Draft and EXT campaigns have no figures: no days, and no 404.
    for (const key of ['D', 'E']) expect(await ok(`/api/campaign/actions/${key}/daily/`)).toEqual({ campaign_key: key, timezone: 'UTC', days: [], count: 0, next: null, next_url: null });
  });

  it('pages the days with next and next_url, from any date', async () => {
    const seen: Json[] = [];
    const nexts: Array<string | null> = [];
    let url: string | null = '/api/campaign/actions/A/daily/?limit=10';
    while (url) {
      const page = await ok(url);
      expect(page.count).toBe(page.days.length);
      seen.push(...page.days);
      nexts.push(page.next);
      url = page.next_url;
      if (url) expect(new URL(url, 'http://x').searchParams.get('from')).toBe(page.next);
    }
    expect(nexts).toEqual(['2026-03-11', '2026-03-21', '2026-03-31', null]);
    expect(seen).toEqual(A_DAYS);
    // `from` is any date: the first day wanted.
    expect((await ok('/api/campaign/actions/A/daily/?from=2026-03-31')).days).toEqual(A_DAYS.slice(30));
    expect((await ok('/api/campaign/actions/A/daily/?from=2026-03-20&limit=2')).days.map((d: Json) => d.date)).toEqual(['2026-03-20', '2026-03-21']);
    expect((await ok('/api/campaign/actions/A/daily/?from=2026-01-01')).days).toEqual(A_DAYS);
    expect(await ok('/api/campaign/actions/A/daily/?from=2026-04-01')).toMatchObject({ days: [], count: 0, next: null, next_url: null });
    expect((await ok('/api/campaign/actions/A/daily/?limit=1000')).count).toBe(31);
  });

  it('refuses an unknown campaign (404), a bad from or limit, and unknown query parameters (400)', async () => {
    expect(await refused('/api/campaign/actions/NOPE/daily/', 404)).toMatch(/NOPE/);
    // A key is any text without spaces or commas: sent percent-encoded, it names its campaign.
    const key = 'Ä/1%?#';
    const res = await send('POST', '/api/campaigns/upload/', { campaigns: [{ campaign_key: key, kind: 'email', state: 'active', activated_at: '2025-05-01' }] });
    expect([res.status, res.body.errors]).toEqual([200, []]);
    await waitForProjection(api.rt.pool, 'campaigns', await api.rt.store.headPosition(), { timeoutMs: 30_000 });
    expect(await ok(`/api/campaign/actions/${encodeURIComponent(key)}/daily/?limit=1`)).toMatchObject({ campaign_key: key, count: 1, days: [{ date: '2025-05-01', sent: 0 }], next: '2025-05-02' });
    for (const [query, message] of [
      ['from=2026-02-30', /^from must be a date YYYY-MM-DD/],
      ['from=yesterday', /^from must be a date/],
      ['from=2026-03-01T00:00:00Z', /^from must be a date/],
      ['from=2026-03-01&from=2026-03-02', /^from must be a date/],
      ['limit=0', /^limit must be a whole number from 1 to 1000/],
      ['limit=1001', /^limit must be a whole number from 1 to 1000/],
      ['limit=ten', /^limit must be/],
      ['order=ascending', /order/],
      ['sales_start=2026-03-01', /sales_start/],
    ] as const) {
      expect([query, await refused(`/api/campaign/actions/A/daily/?${query}`)]).toEqual([query, expect.stringMatching(message)]);
    }
    expect(await refused('/api/campaign/actions/?salesstart=2026-03-01')).toMatch(/salesstart/);
    expect(await refused('/api/campaign/actions/?keys=A&sales_start=2026-03-01&date_from=2026-03-01')).toMatch(/date_from/);
  });

  /** A's and B's records in a list with these query parameters, cache_modified_at left out. */
  const filtered = async (query: string) =>
    Object.fromEntries((await ok(`/api/campaign/actions/?keys=A,B&${query}`)).campaigns.map((c: Json) => [c.campaign_key, { ...c.stats, cache_modified_at: undefined }]));
  const expected = (key: 'A' | 'B', figures: Json) => {
    const stats = EXPECTED[key].stats;
    return { ...stats, cache_modified_at: undefined, ...figures, sales: { ...stats.sales, ...figures.sales }, performance: { ...stats.performance, ...figures.performance } };
  };
  const NO_SALES = {
    audience_with_sales: 0, sales_for_conversion: 0,
    sales: { total_sales: 0, total_revenue: 0, total_products_count: 0, average_products_count: 0, campaign_product_count: 0, campaign_product_revenue: 0, other_product_count: 0, other_product_revenue: 0, product_categories: [] },
    performance: { audience_converted: 0, conversion_rate: 0, revenue_per_recipient: 0 },
  };

  it('counts only the sales from sales_start to sales_end, both included, in the list', async () => {
    // March 6 to 20 (days, whole): of A's counted sales S8 (K-6, March 15, P-4 1 / 2000) and S9 (K-1,
    // March 20 at 10:00, P-1 1 / 1000 and the returned P-3 0 / 0). Buyers K-6 and K-1; S9 converts (K-1
    // opened on March 1). Units 1 + 1, 1 a sale; A's products: S9's P-1 1 / 1000; others: S8's P-4 1 / 2000.
    // Categories: "" 2000, Shoes 1000, Bags 0 (the returned row). Converted: K-1, 1 / 6 = 0.1667; revenue
    // 3000 / 6 = 500 a recipient. Events, audience and opens do not depend on sales: unchanged, and so is
    // sales.date_range, the window. B's S10 (March 12) and S9 (March 20) are both inside: B unchanged.
    const march6to20 = {
      audience_with_sales: 2, sales_for_conversion: 1,
      sales: { total_sales: 2, total_revenue: 3000, total_products_count: 2, average_products_count: 1, campaign_product_count: 1, campaign_product_revenue: 1000, other_product_count: 1, other_product_revenue: 2000,
        product_categories: [{ title: '', units: 1, revenue: 2000, discount: 0 }, { title: 'Shoes', units: 1, revenue: 1000, discount: 0 }, { title: 'Bags', units: 0, revenue: 0, discount: 0 }] },
      performance: { audience_converted: 1, conversion_rate: 0.1667, revenue_per_recipient: 500 },
    };
    expect(await filtered('sales_start=2026-03-06&sales_end=2026-03-20')).toEqual({ A: expected('A', march6to20), B: expected('B', {}) });
    // The same range as instants, with an offset, and as wall-clock times of the zone (UTC here).
    expect((await filtered('sales_start=2026-03-06T02:00:00%2B02:00&sales_end=2026-03-20T10:00:00Z')).A).toEqual(expected('A', march6to20));
    expect((await filtered('sales_start=2026-03-06T00:00:00&sales_end=2026-03-20%2010:00')).A).toEqual(expected('A', march6to20));
    // One microsecond earlier, S9 (10:00) is out: A keeps S8 only; B keeps S10 only.
    const s8 = await filtered('sales_start=2026-03-06&sales_end=2026-03-20T09:59:59.999999Z');
    expect([s8.A.sales.total_sales, s8.A.sales.total_revenue, s8.A.sales_for_conversion, s8.B.sales.total_sales, s8.B.sales.total_revenue]).toEqual([1, 2000, 0, 1, 2100]);

    // From March 21: A's S11 (K-7, P-2 1 / 1500) and S2 (K-2, March 31 23:00, P-3 1 / 3000); neither
    // buyer opened or clicked. A's products: P-3; others: P-2. Revenue 4500 / 6 = 750 a recipient.
    // B has no sale after March 20: zeros, rates 0 (its 2 reached members are still the denominator).
    expect(await filtered('sales_start=2026-03-21')).toEqual({
      A: expected('A', {
        audience_with_sales: 2, sales_for_conversion: 0,
        sales: { total_sales: 2, total_revenue: 4500, total_products_count: 2, average_products_count: 1, campaign_product_count: 1, campaign_product_revenue: 3000, other_product_count: 1, other_product_revenue: 1500,
          product_categories: [{ title: 'Bags', units: 1, revenue: 3000, discount: 0 }, { title: 'Shoes', units: 1, revenue: 1500, discount: 0 }] },
        performance: { audience_converted: 0, conversion_rate: 0, revenue_per_recipient: 750 },
      }),
      B: expected('B', NO_SALES),
    });
    // Up to March 5: A's S1 alone (K-1, after the open: converted; P-1 2 / 1900 with its discount 100,
    // P-2 1 / 500; the sale 2200 after its own discount). 2200 / 6 = 366.67 a recipient. B: none yet.
    expect(await filtered('sales_end=2026-03-05')).toEqual({
      A: expected('A', {
        audience_with_sales: 1, sales_for_conversion: 1,
        sales: { total_sales: 1, total_revenue: 2200, total_products_count: 3, average_products_count: 3, campaign_product_count: 2, campaign_product_revenue: 1900, other_product_count: 1, other_product_revenue: 500,
          product_categories: [{ title: 'Shoes', units: 3, revenue: 2400, discount: 100 }] },
        performance: { audience_converted: 1, conversion_rate: 0.1667, revenue_per_recipient: 366.67 },
      }),
      B: expected('B', NO_SALES),
    });
    // A range no counted sale falls in: the sales figures are zeros, the rest stays.
    expect((await filtered('sales_start=2026-04-02')).A).toEqual(expected('A', NO_SALES));
    // Empty values filter nothing.
    expect(await filtered('sales_start=&sales_end=')).toEqual({ A: expected('A', {}), B: expected('B', {}) });
  });

  it('keeps the sales range on every page, and refuses a bad date or a start after the end', async () => {
    const first = await ok('/api/campaign/actions/?limit=2&sales_end=2026-03-05');
    expect(first.campaigns.map((c: Json) => c.campaign_key)).toEqual(['B', 'D']);
    expect(first.campaigns[0].stats.sales.total_sales).toBe(0);
    expect(new URL(first.next_url, 'http://x').searchParams.get('sales_end')).toBe('2026-03-05');
    const second = await ok(first.next_url);
    expect(second.campaigns.map((c: Json) => c.campaign_key)).toEqual(['A', 'E']);
    expect([second.campaigns[0].stats.sales.total_sales, second.campaigns[0].stats.sales.total_revenue]).toEqual([1, 2200]);

    for (const [query, message] of [
      ['sales_start=2026-02-30', /^sales_start must be a date .*not a real date/],
      ['sales_end=2026-13-01', /^sales_end must be a date/],
      ['sales_start=March', /^sales_start must be a date/],
      ['sales_end=2026-03-01T25:00:00Z', /^sales_end must be a date/],
      ['sales_start=2026-03-01T10:00:00%2B19:00', /^sales_start must be a date/],
      ['sales_start=2026-03-01&sales_start=2026-03-02', /^sales_start must be given once/],
      ['sales_start=2026-03-21&sales_end=2026-03-20', /^sales_start \(2026-03-21\) must not be after sales_end \(2026-03-20\)/],
      ['sales_start=2026-03-20T10:00:00.000001Z&sales_end=2026-03-20T10:00:00Z', /must not be after/],
      ['sales_start=2026-03-21&sales_end=2026-03-20T23:59:59Z', /must not be after/],
      ['sales_start=2026-03-21T00:00:00&sales_end=2026-03-20', /must not be after/],
    ] as const) {
      expect([query, await refused(`/api/campaign/actions/?${query}`)]).toEqual([query, expect.stringMatching(message)]);
    }
    // A start on the end's day, or at the end's instant, is a range.
    expect((await filtered('sales_start=2026-03-20&sales_end=2026-03-20')).A.sales.total_sales).toBe(1);
    expect((await filtered('sales_start=2026-03-20T23:59:59Z&sales_end=2026-03-20')).A.sales.total_sales).toBe(0);
    expect((await filtered('sales_start=2026-03-20T10:00:00Z&sales_end=2026-03-20T10:00:00Z')).A.sales.total_revenue).toBe(1000);
  });

  // Last in this block: it adds a sale. The API keeps a range's records between requests, under the
  // transaction that computed each campaign's figures; a sale counted computes them again.
  it('answers a range asked again as before, and with a sale inside it once that sale is counted', async () => {
    const range = 'sales_start=2026-03-06&sales_end=2026-03-20';
    const before = await filtered(range);
    expect(await filtered(range)).toEqual(before);
    const outside = await filtered('sales_start=2026-03-21');
    // S12: K-6 (in A's audience, not B's) on March 16, P-4 1 / 700.
    const res = await send('POST', '/api/sales/upload/', {
      sales: [
        { sale_external_id: 'S12', sale_date: '2026-03-16T09:00:00Z', sale_customer_id: 'K-6' },
        { sale_external_id: 'S12', product_id: 'P-4', quantity: 1, unit_price: 700 },
      ],
    });
    expect([res.status, res.body.accepted]).toEqual([200, 2]);
    await waitForProjection(api.rt.pool, 'campaigns', await api.rt.store.headPosition(), { timeoutMs: 30_000 });
    const after = await filtered(range);
    expect([after.A.sales.total_sales, after.A.sales.total_revenue, after.A.audience_with_sales]).toEqual([before.A.sales.total_sales + 1, before.A.sales.total_revenue + 700, before.A.audience_with_sales]);
    expect(after.B).toEqual(before.B);
    expect(await filtered('sales_start=2026-03-21')).toEqual(outside);
  });
});

describe('campaign days in the settings\' time zone, automated from the kind, campaigns without activation last', () => {
  let api: TestApi;
  let token: string;
  beforeAll(async () => {
    api = await startTestApi({ projections: [customersProjection, productsProjection, salesProjection, campaignsProjection] });
    token = (await seedUserToken(api.rt, 'zones', ['admin'])).token;
  });
  afterAll(async () => {
    await api?.close();
  });
  const send = (method: string, path: string, body?: unknown) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const imported = async (path: string, body: unknown) => {
    const res = await send('POST', path, body);
    expect([res.status, res.body.errors]).toEqual([200, []]);
    await eventually(async () => expect((await send('GET', `/api/runs/${res.body.run_id}/`)).body.state).toBe('completed'));
  };
  const stats = async (key: string) => (await send('GET', '/api/campaign/actions/?limit=100')).body.campaigns.find((c: Json) => c.campaign_key === key);

  it('counts sales by the days of the settings\' zone: a date-only sale on the activation day, not one after day 30 there', async () => {
    expect((await send('PATCH', '/api/settings/', { timezone: 'Europe/Helsinki' })).status).toBe(200);
    await imported('/api/customers/upload/', { customers: [{ external_id: 'Z-1' }] });
    // Activated at 23:30 local on 1 June (20:30 UTC); the window is 1 June to 1 July, local days.
    await imported('/api/campaigns/upload/', { campaigns: [{ campaign_key: 'Z', kind: 'automated-email', name: 'Zone', state: 'ACTIVE', activated_at: '2026-06-01T23:30:00' }] });
    await imported('/api/campaigns/events/upload/', { events: [{ campaign_key: 'Z', type: 'sent', date: '2026-06-01T23:31:00', customer_id: 'Z-1' }] });
    const sale = (id: string, date: string, price: number) => ({ sale_external_id: id, sale_date: date, sale_customer_id: 'Z-1', product_id: 'P-1', quantity: 1, unit_price: price });
    await imported('/api/sales/upload/', { sales: [
      sale('Z-DAY', '2026-06-01', 100), // a date alone: midnight in Helsinki, 31 May in UTC
      sale('Z-LAST', '2026-07-01T23:30:00', 20), // day 30, late in the evening: 20:30 UTC
      sale('Z-AFTER', '2026-07-02T00:30:00', 3), // day 31 in Helsinki, still 1 July in UTC
      sale('Z-BEFORE', '2026-05-31T23:30:00', 5000), // the day before, 20:30 UTC
    ] });
    const z = await eventually(async () => {
      const c = await stats('Z');
      expect(c.stats.sales.total_sales).toBe(2);
      return c;
    });
    expect(z.stats.sales).toMatchObject({ total_revenue: 120, date_range: { start: '2026-06-01', end: '2026-07-01' } });
    // Not sent: automated from its kind, as the spec's kinds say; its date range is the activation's instant.
    expect(z.automated).toBe(true);
    expect(z.stats.date_range).toEqual({ start: '2026-06-01T20:30:00.000000Z', end: '2026-07-01T20:30:00.000000Z' });
  });

  it('lists campaigns without an activation last in ascending order as in descending', async () => {
    await imported('/api/campaigns/upload/', { campaigns: [{ campaign_key: 'Z-DRAFT', kind: 'email', state: 'draft' }, { campaign_key: 'Z-EARLY', kind: 'email', state: 'ACTIVE', activated_at: '2026-01-01T00:00:00.000000Z' }] });
    const keys = async (order: string) => (await send('GET', `/api/campaign/actions/?limit=100&order=${order}`)).body.campaigns.map((c: Json) => c.campaign_key);
    expect(await keys('ascending')).toEqual(['Z-EARLY', 'Z', 'Z-DRAFT']);
    expect(await keys('descending')).toEqual(['Z', 'Z-EARLY', 'Z-DRAFT']);
    expect((await stats('Z-DRAFT')).automated).toBe(false);
  });

  it('gives the daily series in the settings\' zone, and reads sales_start/sales_end there', async () => {
    // An open of Z at 01:00 on 5 July in Helsinki (22:00 UTC on the 4th): after the window, a day of its own.
    await imported('/api/campaigns/events/upload/', { events: [{ campaign_key: 'Z', type: 'open', date: '2026-07-05T01:00:00', customer_id: 'Z-1' }] });
    const zero = { sent: 0, delivered: 0, opens: 0, clicks: 0, unsubscribes: 0, spam_reports: 0, bounces: 0, unique_opens: 0, unique_clicks: 0, total_sales: 0, total_revenue: 0, sales_for_conversion: 0 };
    const z = (await send('GET', '/api/campaign/actions/Z/daily/')).body;
    // The window's 31 Helsinki days (1 June to 1 July) and 5 July: the sent event and Z-DAY on 1 June,
    // Z-LAST on 1 July (neither converted: the open came later), the open on 5 July.
    expect([z.timezone, z.count, z.days[0].date, z.days[30].date, z.days[31].date]).toEqual(['Europe/Helsinki', 32, '2026-06-01', '2026-07-01', '2026-07-05']);
    expect(z.days.filter((d: Json) => Object.entries(zero).some(([k, v]) => d[k] !== v))).toEqual([
      { ...zero, date: '2026-06-01', sent: 1, total_sales: 1, total_revenue: 100 },
      { ...zero, date: '2026-07-01', total_sales: 1, total_revenue: 20 },
      { ...zero, date: '2026-07-05', opens: 1, unique_opens: 1 },
    ]);
    // Z: its one member reached and opened; no conversion (the sales came first); 120 / 1 a recipient.
    expect((await stats('Z')).stats.performance).toEqual({
      audience_reached: 1, unique_opens: 1, total_opens: 1, unique_clicks: 0, total_clicks: 0, audience_converted: 0, open_rate: 1, click_rate: 0, conversion_rate: 0, revenue_per_recipient: 120,
    });
    // Z-EARLY was sent to no one: nothing reached, and no rate (null, not a division by zero); its days are the window's, zeros.
    expect((await stats('Z-EARLY')).stats.performance).toEqual({
      audience_reached: 0, unique_opens: 0, total_opens: 0, unique_clicks: 0, total_clicks: 0, audience_converted: 0, open_rate: null, click_rate: null, conversion_rate: null, revenue_per_recipient: null,
    });
    const early = (await send('GET', '/api/campaign/actions/Z-EARLY/daily/')).body;
    expect([early.count, early.days[0], early.days[30].date]).toEqual([31, { ...zero, date: '2026-01-01' }, '2026-01-31']);

    // Z-DAY is midnight of 1 June in Helsinki (21:00 UTC on 31 May), Z-LAST 23:30 on 1 July there (20:30 UTC).
    const sales = async (query: string) => {
      const res = await send('GET', `/api/campaign/actions/?keys=Z&${query}`);
      expect([query, res.status]).toEqual([query, 200]);
      return [query, res.body.campaigns[0].stats.sales.total_sales, res.body.campaigns[0].stats.sales.total_revenue];
    };
    expect(await sales('sales_end=2026-06-01')).toEqual(['sales_end=2026-06-01', 1, 100]); // a day there
    expect(await sales('sales_start=2026-06-01T00:00:00Z')).toEqual(['sales_start=2026-06-01T00:00:00Z', 1, 20]); // an instant: after Z-DAY
    expect(await sales('sales_start=2026-06-01T00:00:00')).toEqual(['sales_start=2026-06-01T00:00:00', 2, 120]); // wall-clock time there
    expect(await sales('sales_end=2026-07-01T20:29:59Z')).toEqual(['sales_end=2026-07-01T20:29:59Z', 1, 100]);
    expect(await sales('sales_end=2026-07-01T23:29:59')).toEqual(['sales_end=2026-07-01T23:29:59', 1, 100]);
    // 1 June starts at 21:00 UTC on 31 May there: a range up to 21:30 UTC is one (a 400 in UTC), up to 20:59:59 is none.
    expect(await sales('sales_start=2026-06-01&sales_end=2026-05-31T21:30:00Z')).toEqual(['sales_start=2026-06-01&sales_end=2026-05-31T21:30:00Z', 1, 100]);
    const reversed = await send('GET', '/api/campaign/actions/?keys=Z&sales_start=2026-06-01&sales_end=2026-05-31T20:59:59Z');
    expect([reversed.status, reversed.body.error?.message]).toEqual([400, expect.stringMatching(/^sales_start \(2026-06-01\) must not be after sales_end/)]);
  });
});
