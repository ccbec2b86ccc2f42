import { CAMPAIGN_STATS_FROM_SCRATCH, campaignsProjection, customersProjection, productsProjection, salesProjection, waitForProjection } from '#mds/projections';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { seededRandom } from '../support/random';

type Json = Record<string, any>;

// Random campaigns, campaign events, customers (joining, changing e-mail, forgotten), products and
// sales, imported in a random order in small requests, so pages mix every kind: the statistics the
// projection keeps incrementally must equal the same figures computed from scratch over the raw rows.
describe('campaign statistics, incremental against from scratch', () => {
  let api: TestApi;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: [customersProjection, productsProjection, salesProjection, campaignsProjection] });
    token = (await seedUserToken(api.rt, 'analyst', ['staff'])).token;
  });
  afterAll(async () => {
    await api?.close();
  });

  const upload = async (path: string, key: string, records: unknown[]) => {
    const res = await api.call(`/api/${path}/upload/`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ [key]: records }) });
    expect([path, res.status, res.body.errors]).toEqual([path, 200, []]);
  };

  it.each([20261124, 7, 42])('gives the same figures (seed %i)', async (seed) => {
    const rand = seededRandom(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    const s = `${seed}`;
    const day = (from: number, span: number) => new Date(Date.UTC(2026, 2, from) + Math.floor(rand() * span * 24) * 3_600_000).toISOString();
    const people = Array.from({ length: 8 }, (_, i) => ({ ext: `${s}-K${i}`, email: `${s}.k${i}@example.com`, phone: `+3584010${String(seed % 1000).padStart(3, '0')}${i}` }));
    const guests = Array.from({ length: 3 }, (_, i) => `${s}.g${i}@example.com`);
    const someone = (forms: Array<'ext' | 'email' | 'phone'>): Json => {
      if (rand() < 0.2) return { [forms.includes('email') ? 'email' : 'customer_id']: forms.includes('email') ? pick(guests) : `${s}-G${Math.floor(rand() * 3)}` };
      const p = pick(people);
      const form = pick(forms);
      return form === 'ext' ? { customer_id: p.ext } : form === 'email' ? { email: p.email } : { phone_number: p.phone };
    };
    const keys = Array.from({ length: 5 }, (_, i) => `${s}-C${i}`);
    const productIds = Array.from({ length: 5 }, (_, i) => `${s}-P${i}`);
    const requests: Array<[string, string, unknown[]]> = [];
    requests.push(['products', 'products', productIds.map((id, i) => ({ external_id: id, ...(i < 4 ? { category: [pick(['Shoes', 'Bags', 'Hats'])] } : {}) }))]);
    requests.push(['products', 'products', [{ external_id: productIds[0], category: ['Boots'] }]]);
    for (const p of people) requests.push(['customers', 'customers', [{ external_id: p.ext, email: p.email, ...(rand() < 0.6 ? { phone_number: p.phone } : {}) }]]);
    requests.push(['customers', 'customers', [{ email: guests[0] }, { email: guests[1] }]]);
    for (const key of keys) {
      requests.push(['campaigns', 'campaigns', [{
        campaign_key: key, kind: pick(['automated-email', 'email', 'sms', 'EXT']), automated: rand() < 0.5, state: pick(['active', 'active', 'active', 'draft']),
        ...(rand() < 0.8 ? { activated_at: day(1, 10) } : {}), product_ids: productIds.filter(() => rand() < 0.4),
      }]]);
    }
    requests.push(['campaigns', 'campaigns', [{ campaign_key: keys[0], state: 'active', kind: 'email' }]]); // a patch
    for (let i = 0; i < 8; i++) {
      requests.push(['campaigns/events', 'events', Array.from({ length: 10 }, () => ({
        campaign_key: rand() < 0.95 ? pick(keys) : `${s}-C9`, type: pick(['sent', 'sent', 'sent', 'delivered', 'open', 'click', 'unsubscribe', 'spam_report', 'bounce']),
        date: day(1, 20), ...someone(['ext', 'email', 'phone']),
      }))]);
    }
    const sale = (id: string, state?: string) => {
      const rows = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
        const returned = rand() < 0.1;
        const product = rand() < 0.9 ? { product_id: pick(productIds) } : { product_sku: `${s}-SKU${Math.floor(rand() * 2)}` };
        return { sale_external_id: id, ...product, quantity: 1 + Math.floor(rand() * 3), unit_price: returned ? 0 : 100 * (1 + Math.floor(rand() * 50)), ...(returned ? { tags: ['CANCELED'] } : {}), ...(rand() < 0.2 ? { discount: -50 } : {}) };
      });
      return [{ sale_external_id: id, sale_date: day(-3, 50), ...someone(['ext', 'email', 'phone']), ...(state ? { sale_state: state } : {}) }, ...rows]
        .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k === 'customer_id' ? 'sale_customer_id' : k === 'email' ? 'sale_email' : k === 'phone_number' ? 'sale_phone_number' : k, v])));
    };
    const saleIds = Array.from({ length: 40 }, (_, i) => `${s}-S${i}`);
    for (let i = 0; i < saleIds.length; i += 5) requests.push(['sales', 'sales', saleIds.slice(i, i + 5).flatMap((id) => sale(id, pick([undefined, undefined, undefined, 'CANCELLED', 'closed', 'new'])))]);
    // A random order: every kind before and after every other.
    for (let i = requests.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [requests[i], requests[j]] = [requests[j], requests[i]];
    }
    // Then, with no campaign event after them, what moves figures only through the audience: a guest
    // joining, an e-mail changing, a buyer forgotten, sales re-imported (new state, date, rows) and new ones.
    const late: Array<[string, string, unknown[]]> = [
      ['customers', 'customers', [{ external_id: `${s}-G0`, email: guests[0] }]],
      ['customers', 'customers', [{ external_id: people[2].ext, email: `${s}.changed@example.com` }]],
      ['customers', 'customers', [{ external_id: people[5].ext, is_forgotten: true }]],
      ['sales', 'sales', saleIds.filter(() => rand() < 0.3).flatMap((id) => sale(id, pick(['CANCELLED', 'COMPLETE'])))],
      ['sales', 'sales', [`${s}-S90`, `${s}-S91`, `${s}-S92`].flatMap((id) => sale(id))],
    ];
    const settle = async () => waitForProjection(api.rt.pool, 'campaigns', await api.rt.store.headPosition(), { timeoutMs: 60_000 });
    for (const [path, key, records] of requests) await upload(path, key, records);
    // Each late request a page of its own: nothing else in the page marks the campaigns it changes.
    for (const [path, key, records] of late) {
      await settle();
      await upload(path, key, records);
    }
    await settle();

    const incremental = (await api.rt.pool.query(`SELECT campaign_key, stats, sale_ids, product_ids FROM campaign_stats WHERE campaign_key = ANY($1) ORDER BY 1`, [keys])).rows;
    const scratch = (await api.rt.pool.query(`SELECT campaign_key, stats, sale_ids, product_ids FROM (${CAMPAIGN_STATS_FROM_SCRATCH}) x ORDER BY 1`, [keys])).rows;
    expect(incremental).toEqual(scratch);
    // The scenario is not empty: audiences, counted sales and products.
    const stats = incremental.map((r) => r.stats).filter(Boolean);
    expect(stats.length).toBeGreaterThan(0);
    expect(stats.some((x: Json) => x.audience_size > 1)).toBe(true);
    expect(incremental.some((r) => r.sale_ids.length > 0)).toBe(true);

    // Beyond the spec, on the same data: the daily series and the counted sales by time (what
    // sales_start/sales_end sum) equal their from-scratch versions too.
    const DAY = 'day date, sent bigint, delivered bigint, opens bigint, clicks bigint, unsubscribes bigint, spam_reports bigint, bounces bigint, unique_opens bigint, unique_clicks bigint, total_sales bigint, total_revenue bigint, sales_for_conversion bigint';
    const SALE = 'at timestamptz, day date, member integer, converted boolean, revenue bigint, units numeric, own_units numeric, own_revenue numeric, other_units numeric, other_revenue numeric';
    const columns = (list: string) => list.split(', ').map((c) => c.split(' ')[0]).join(', ');
    const rows = async (sql: string) => (await api.rt.pool.query(sql, [keys])).rows;
    expect(await rows(`SELECT campaign_key, ${columns(DAY)} FROM campaign_days WHERE campaign_key = ANY($1) ORDER BY 1, 2`))
      .toEqual(await rows(`SELECT x.campaign_key, d.* FROM (${CAMPAIGN_STATS_FROM_SCRATCH}) x CROSS JOIN LATERAL json_to_recordset(x.days) AS d(${DAY}) ORDER BY 1, 2`));
    expect(await rows(`SELECT campaign_key, ${columns(SALE)} FROM campaign_sales WHERE campaign_key = ANY($1) ORDER BY 1, 2, 6, 4`))
      .toEqual(await rows(`SELECT x.campaign_key, d.* FROM (${CAMPAIGN_STATS_FROM_SCRATCH}) x CROSS JOIN LATERAL json_to_recordset(x.sale_rows) AS d(${SALE}) ORDER BY 1, 2, 6, 4`));
    expect(await rows(`SELECT campaign_key, reached FROM campaign_stats WHERE campaign_key = ANY($1) ORDER BY 1`)).toEqual(await rows(`SELECT campaign_key, reached FROM (${CAMPAIGN_STATS_FROM_SCRATCH}) x ORDER BY 1`));

    // Through the API: each campaign's days add up to its statistics, and a sales range cut at a
    // random day of the window into two gives sales figures that add up to the whole window's.
    const get = async (path: string) => {
      const res = await api.call(path, { headers: { authorization: `Bearer ${token}` } });
      expect([path, res.status]).toEqual([path, 200]);
      return res.body as Json;
    };
    const plusDays = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
    let split = 0;
    for (const record of (await get(`/api/campaign/actions/?keys=${keys.join(',')}`)).campaigns as Json[]) {
      const { days } = await get(`/api/campaign/actions/${record.campaign_key}/daily/?limit=1000`);
      if (!record.stats) {
        expect(days).toEqual([]);
        continue;
      }
      const sum = (field: string) => days.reduce((n: number, d: Json) => n + d[field], 0);
      const { stats } = record;
      expect([record.campaign_key, ...stats.events.map((e: Json) => sum(e.name)), sum('total_sales'), sum('total_revenue'), sum('sales_for_conversion')])
        .toEqual([record.campaign_key, ...stats.events.map((e: Json) => e.count), stats.sales.total_sales, stats.sales.total_revenue, stats.sales_for_conversion]);
      if (!stats.sales.date_range) continue;
      const { start, end } = stats.sales.date_range;
      const within = async (query: string) => (await get(`/api/campaign/actions/?keys=${record.campaign_key}&${query}`)).campaigns[0].stats;
      expect(await within(`sales_start=${start}&sales_end=${end}`)).toEqual(stats);
      const cut = plusDays(start, Math.floor(rand() * 30));
      const [before, after] = [await within(`sales_end=${cut}`), await within(`sales_start=${plusDays(cut, 1)}`)];
      const figures = (x: Json) => [x.sales.total_sales, x.sales.total_revenue, x.sales_for_conversion, x.sales.total_products_count, x.sales.campaign_product_revenue, x.sales.other_product_revenue];
      expect(figures(before).map((n, i) => n + figures(after)[i])).toEqual(figures(stats));
      if (before.sales.total_sales > 0 && after.sales.total_sales > 0) split++;
    }
    // Not vacuous: some campaign of every seed has counted sales on both sides of its cut (2 or 3 here).
    expect(split).toBeGreaterThan(0);
  });
});
