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

  const open = async () => {
    api = await startTestApi({ projections: [customersProjection, productsProjection, salesProjection, campaignsProjection] });
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
    expect(Object.keys(a.stats)).toEqual(['date_range', 'audience_size', 'audience_with_events', 'audience_with_sales', 'sales_for_conversion', 'audience_unreachable', 'audience_no_reaction', 'events', 'sales', 'cache_modified_at']);
    // cache_modified_at: the log time of the latest input the figures count (here the last import of a counted sale or of the campaign).
    for (const c of page.campaigns.filter((x) => x.stats)) expect(Date.parse(c.stats.cache_modified_at)).toBeLessThanOrEqual(Date.now());
    // A rebuild from the log gives the same records, field for field.
    const before = (await api.rt.pool.query(`SELECT campaign_key, stats::text, modified_at FROM campaign_stats ORDER BY 1`)).rows;
    await rebuildProjection(api.rt.runnerDeps(), campaignsProjection);
    expect((await api.rt.pool.query(`SELECT campaign_key, stats::text, modified_at FROM campaign_stats ORDER BY 1`)).rows).toEqual(before);
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
});
