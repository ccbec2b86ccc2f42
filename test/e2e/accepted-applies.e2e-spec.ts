import fc from 'fast-check';
import { LIMITS } from '#mds/imports';
import { PROJECTIONS } from '#mds/projections';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';

/**
 * Accepted implies applied, for every datatype: records generated at and beyond every limit (huge and
 * tiny numbers as numbers and as strings, negative zero, far dates in every zone, long strings in
 * characters that take three bytes, long lists, many rows) are imported; each is either rejected in
 * the answer, or its run completes and every projection applies it (none parked, none failing).
 * `npm run fuzz` runs it longer (FUZZ_RUNS).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 6);

type Rec = Record<string, unknown>;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
/** A string of `n` UTF-16 units: ASCII, a repeated 3-byte character, or random 3-byte characters (which do not compress). */
const textOf = (n: number) =>
  fc.oneof(
    fc.constant('a'.repeat(n)),
    fc.constant('€'.repeat(n)),
    fc.array(fc.integer({ min: 0x800, max: 0xd7ff }), { minLength: n, maxLength: n }).map((cs) => String.fromCharCode(...cs)),
  );
const lengths = [0, 1, LIMITS.id - 1, LIMITS.id, LIMITS.id + 1, LIMITS.listItem, LIMITS.listItem + 1, LIMITS.text, LIMITS.text + 1];
const text = fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 12 }) }, { weight: 2, arbitrary: fc.constantFrom(...lengths).chain(textOf) });
const id = fc.oneof({ weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9-]{1,12}$/) }, { weight: 1, arbitrary: fc.constantFrom(LIMITS.id, LIMITS.id + 1).chain(textOf) });

const number = fc.oneof(
  fc.constantFrom(0, 1, -1, 0.5, 1.005, 0.004, LIMITS.money, LIMITS.money + 1, -LIMITS.money, 2 ** 53 - 1, 2 ** 53, 1e16, 1e300, -1e300, 1e-300, 5e-324,
    LIMITS.quantity, LIMITS.quantity + 0.01, LIMITS.exchangeRateMin, LIMITS.exchangeRateMax, 1e-10, 1e10),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
/** A number as JSON numbers and as the strings plugins send, negative zero and numbers no double holds among them. */
const numberish = fc.oneof(
  { weight: 3, arbitrary: number },
  { weight: 2, arbitrary: number.chain((n) => fc.constantFrom(String(n), n.toExponential(), n.toFixed(Math.min(20, Math.max(0, 2))))) },
  { weight: 1, arbitrary: fc.constantFrom('-0', '-0.0', '-0e5', '9223372036854775807', '-9223372036854775809', '1e400', '1e-400', '12.50', '5.00', '', ' 7 ') },
);

const zone = fc.constantFrom('Z', '', '+14:00', '-12:00', '+05:30', '-03:30', '+18:00', '-18:00', '+19:00');
const year = fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 1, 99, 100, 1000, 1969, 1970, 2024, 9998, 9999));
const datetime = fc.oneof(
  fc.tuple(year, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), zone).map(
    ([y, m, d, h, mi, z]) => `${pad(y, 4)}-${pad(m)}-${pad(d)}T${pad(h)}:${pad(mi)}:59${z}`,
  ),
  fc.tuple(year, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 })).map(([y, m, d]) => `${pad(y, 4)}-${pad(m)}-${pad(d)}`),
  fc.constantFrom('9999-12-31T23:59:59-12:00', '0001-01-01T00:00:00+14:00', '9999-12-31T23:59:59Z', '0001-01-01', '9999-12-31', '0000-01-01', '2024-02-30'),
);
const list = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.string({ minLength: 1, maxLength: 8 }), { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(LIMITS.listItems, LIMITS.listItems + 1).map((n) => Array.from({ length: n }, (_, i) => `t${i}`)) },
  { weight: 1, arbitrary: fc.constantFrom(LIMITS.listItem, LIMITS.listItem + 1).chain(textOf).map((s) => [s]) },
);
const anything = fc.oneof(text, numberish, fc.boolean(), list, fc.constant(null));

/**
 * The required fields (ordinary values mostly, so that most records are accepted and reach the read
 * models) and up to three of the optional ones, at or beyond their limits.
 */
const recordOf = (required: Record<string, fc.Arbitrary<unknown>>, optional: Record<string, fc.Arbitrary<unknown>>) =>
  fc.subarray(Object.keys(optional), { maxLength: 3 }).chain((keys) =>
    fc.record({ ...required, ...Object.fromEntries(keys.map((k) => [k, optional[k]])) }),
  ) as fc.Arbitrary<Rec>;
/** Mostly an ordinary value, sometimes one at or beyond a limit. */
const mostly = <T>(ordinary: fc.Arbitrary<T>, edge: fc.Arbitrary<unknown>) => fc.oneof({ weight: 4, arbitrary: ordinary }, { weight: 1, arbitrary: edge });
const plainId = fc.stringMatching(/^[A-Za-z0-9-]{1,12}$/);
const plainDate = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());

const DATATYPES: Record<string, { path: string; key: string; record: fc.Arbitrary<Rec>; examples: Rec[][] }> = {
  customers: {
    path: '/api/customers/upload/',
    key: 'customers',
    record: recordOf(
      { external_id: mostly(plainId, id) },
      {
        email: fc.oneof(fc.emailAddress(), text), phone_number: fc.oneof(fc.constantFrom('+358401234567', '0401234567'), text), first_name: text, last_name: text,
        cb_token: text, canonical_id: text, company: text, date_joined: datetime, last_login: datetime, birth_date: datetime, tags: list, mailing_lists: list,
        'tags.add': list, can_email: fc.constantFrom(true, false, 'yes', '0', ''), country: fc.constantFrom('FI', 'fi', 'XX1', ''), language: text, custom_points: anything,
      },
    ),
    examples: [[{ external_id: 'c1', date_joined: '9999-12-31T23:59:59-12:00', cb_token: '€'.repeat(LIMITS.listItem) }]],
  },
  products: {
    path: '/api/products/upload/',
    key: 'products',
    record: recordOf(
      { external_id: mostly(plainId, id) },
      {
        price: numberish, sale_price: numberish, lowest_price: numberish, sku: text, ean: text, language: text, title: text, date: datetime, category: fc.oneof(text, list),
        tags: list, stock: fc.array(fc.record({ shop_id: id, quantity: numberish }), { maxLength: 2 }), main_product_ids: list, visible: fc.boolean(), weight: text,
      },
    ),
    examples: [[{ external_id: 'p1', price: '1e300', sku: 'x'.repeat(LIMITS.text), language: 'y'.repeat(LIMITS.text) }]],
  },
  events: {
    path: '/api/events/upload/',
    key: 'events',
    record: recordOf(
      { type: fc.constantFrom('BROWSE', 'BASKET_ADD', 'ORDER_SHIPPED', 'MAIL_SUBSCRIBE', 'SENTIMENT', 'browse'), date: mostly(plainDate, datetime), customer_id: mostly(plainId, id), path: fc.constant('/p'), product_id: plainId, tracking_number: plainId, mailing_lists: fc.constant(['news']), sentiment_value: fc.constant(5) },
      {
        customer_token: text, product_ean: text, sale_id: text, tracking_number: text, path: text, mailing_lists: list, tags: list,
        sentiment_value: numberish, email: fc.emailAddress(), label: text, utm_campaign: text, product_id: text,
      },
    ),
    examples: [[{ type: 'BROWSE', date: '9999-12-31T23:59:59-12:00', customer_id: 'c1', path: '/' }, { type: 'BROWSE', date: '2024-01-01', customer_id: 'c1', customer_token: '€'.repeat(LIMITS.text) , path: '/x' }]],
  },
  sales: {
    path: '/api/sales/upload/',
    key: 'sales',
    record: recordOf(
      { sale_external_id: fc.constantFrom('S1', 'S2', 'S3'), sale_date: mostly(plainDate, datetime), sale_customer_id: mostly(plainId, id), product_id: plainId, quantity: fc.constant(1), unit_price: fc.constant(100) },
      {
        quantity: numberish, unit_price: numberish, discount: numberish, total: numberish, unit_price_in_currency: numberish, sale_currency: fc.constantFrom('USD', 'usd', 'EURO'),
        sale_exchange_rate: numberish, sale_total: numberish, sale_discount: numberish, sale_shipping: numberish, sale_shipping_in_currency: numberish,
        sale_state: fc.constantFrom('COMPLETE', 'cancelled', 'odd'), tags: list, sale_tags: list, sale_coupon_codes: list, product_sku: text, product_ean: text,
        sale_email: fc.emailAddress(), sale_phone_number: text, sale_payment_method: text,
      },
    ),
    examples: [
      [{ sale_external_id: 'Q', sale_date: '2024-01-01', sale_customer_id: 'c1', product_id: 'p', quantity: '9223372036854775807', unit_price: 1000 }],
      [{ sale_external_id: 'U', sale_date: '2024-01-01', sale_customer_id: 'c1', product_id: 'p', quantity: 1, unit_price: 1e300 }],
      [{ sale_external_id: 'R', sale_date: '2024-01-01', sale_customer_id: 'c1', product_id: 'p', quantity: 1, unit_price_in_currency: 500, sale_currency: 'USD', sale_exchange_rate: 1e-300 }],
      [{ sale_external_id: 'D', sale_date: '9999-12-31T23:59:59-12:00', sale_customer_id: 'c1', product_id: 'p', quantity: 1, unit_price: 1 }],
      Array.from({ length: 1100 }, (_, i) => ({ sale_external_id: 'MANY', sale_date: '2024-01-01', sale_customer_id: 'c1', product_id: `p${i}`, quantity: 1, unit_price: 2 ** 53 - 1 })),
      Array.from({ length: 1000 }, (_, i) => ({ sale_external_id: 'MAX', sale_date: '2024-01-01', sale_customer_id: 'c1', product_id: `p${i}`, quantity: 1, unit_price: LIMITS.money / 1000 })),
    ],
  },
  campaigns: {
    path: '/api/campaigns/upload/',
    key: 'campaigns',
    record: recordOf(
      { campaign_key: mostly(plainId, id) },
      {
        kind: fc.constantFrom('MAIL', 'SMS', 'EXT', 'odd'), name: text, state: fc.constantFrom('draft', 'SENT', 'x'), activated_at: datetime, automated: fc.boolean(),
        utm_campaign: text, product_ids: list, folder: fc.record({ id: numberish, name: text }), campaign_tags: fc.array(fc.record({ id: id, label: text }), { maxLength: 2 }),
      },
    ),
    examples: [[{ campaign_key: 'k1', activated_at: '9999-12-31T23:59:59-12:00' }, { campaign_key: 'k2', activated_at: '0001-01-01T00:00:00+14:00' }]],
  },
  campaign_events: {
    path: '/api/campaigns/events/upload/',
    key: 'events',
    record: recordOf(
      { campaign_key: fc.constantFrom('k1', 'k2'), type: fc.constantFrom('sent', 'open', 'click', 'bounce'), date: mostly(plainDate, datetime), customer_id: mostly(plainId, id) },
      { email: fc.oneof(fc.emailAddress(), text), phone_number: text, customer_token: text },
    ),
    examples: [[{ campaign_key: 'k1', type: 'sent', date: '9999-12-31T23:59:59-12:00', customer_id: 'c1' }], [{ campaign_key: 'k1', type: 'sent', date: '2024-01-02', customer_id: 'c'.repeat(LIMITS.id), customer_token: '€'.repeat(LIMITS.listItem), email: `${'ä'.repeat(300)}@x.fi` }]],
  },
  shops: {
    path: '/api/shops/upload/',
    key: 'shops',
    record: recordOf({ external_id: mostly(plainId, id) }, { name: text, url: text, currency: text, anything }),
    examples: [[{ external_id: 's1', name: '€'.repeat(LIMITS.text) }]],
  },
};

/** A failure with its counterexample cut short (records of 10,000 characters and 1,100 rows are among them). */
function shortReport<T>(details: fc.RunDetails<T>): void {
  if (!details.failed) return;
  const example = JSON.stringify(details.counterexample, (_, v) => (typeof v === 'string' && v.length > 40 ? `${v.slice(0, 20)}…(${v.length} units)` : v));
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`Property failed (seed ${details.seed}, path ${details.counterexamplePath}) on ${example.length > 3000 ? `${example.slice(0, 3000)}…` : example}\n${cause}`);
}

describe('accepted implies applied: generated records at and beyond every limit', () => {
  let api: TestApi;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: PROJECTIONS.filter((p) => p.name !== 'access') });
    token = (await seedUserToken(api.rt, 'limits', ['admin'])).token;
    // Datetimes without a zone are read in the settings' zone: the one furthest ahead of UTC.
    expect((await send('PATCH', '/api/settings/', { timezone: 'Pacific/Kiritimati' })).status).toBe(200);
  });
  afterAll(async () => {
    await api?.close();
  });

  const send = (method: string, path: string, body?: unknown) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

  /** Every live projection has reached the log's head; then none parked an event or is failing. */
  async function everyProjectionApplied(): Promise<void> {
    const head = await api.rt.store.headPosition();
    await eventually(
      async () => {
        const { rows } = await api.rt.pool.query<{ name: string; checkpoint: string }>(`SELECT name, checkpoint FROM mds_projections WHERE state = 'live'`);
        const behind = rows.filter((r) => Number(r.checkpoint) < head);
        if (behind.length > 0) throw new Error(`behind the head ${head}: ${behind.map((r) => `${r.name} at ${r.checkpoint}`).join(', ')}`);
      },
      { timeoutMs: 30_000, intervalMs: 20 },
    );
    const { rows: parked } = await api.rt.pool.query(`SELECT projection, position, type, error FROM mds_parked_events`);
    expect(parked).toEqual([]);
    const { rows: failing } = await api.rt.pool.query(`SELECT name, last_error FROM mds_projections WHERE state = 'live' AND last_failed_at IS NOT NULL`);
    expect(failing).toEqual([]);
  }

  for (const [datatype, d] of Object.entries(DATATYPES)) {
    it(`${datatype}: each record is rejected in the answer, or its run completes and every projection applies it`, async () => {
      const seen = { accepted: 0, rejected: 0 };

      await fc.assert(
        fc.asyncProperty(fc.array(d.record, { minLength: 1, maxLength: 6 }), async (records) => {
          // Each case on its own (shrinking too): what an earlier one parked is not this one's.
          await api.rt.pool.query(`DELETE FROM mds_parked_events; UPDATE mds_projections SET last_failed_at = NULL, last_error = NULL`);
          const res = await send('POST', d.path, { [d.key]: records });
          if (res.status === 400) {
            // Nothing accepted: every record is named in the answer.
            expect(res.body.error.code).toBe('invalid_request');
            seen.rejected += records.length;
            return;
          }
          expect(res.status).toBe(200);
          expect(res.body.accepted + res.body.rejected).toBe(records.length);
          seen.accepted += res.body.accepted;
          seen.rejected += res.body.rejected;
          const run = await eventually(
            async () => {
              const r = await send('GET', `/api/runs/${res.body.run_id}/`);
              if (r.body.state === 'scheduled') throw new Error('still scheduled');
              return r.body;
            },
            { timeoutMs: 30_000, intervalMs: 20 },
          );
          expect(run).toMatchObject({ state: 'completed' });
          await everyProjectionApplied();
        }),
        { numRuns: RUNS, examples: d.examples.map((e) => [e]), reporter: shortReport },
      );
      // The generators reach the read models, not only the validation.
      expect(seen.accepted).toBeGreaterThan(0);
      process.stdout.write(`${datatype}: ${seen.accepted} accepted, ${seen.rejected} rejected\n`);
    });
  }
});
