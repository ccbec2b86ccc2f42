import { customersProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';

const TOTAL = 100_000;
const PER_REQUEST = 1000;

describe('customer import at volume', () => {
  let api: TestApi;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi({ projections: [customersProjection] });
    token = (await seedUserToken(api.rt, 'bulk', ['admin'])).token;
  });
  afterAll(async () => {
    await api?.close();
  });

  it('imports 100,000 customers in requests of 1,000 and reads every one back page by page, once', async () => {
    const started = Date.now();
    const runs: string[] = [];
    for (let r = 0; r < TOTAL / PER_REQUEST; r++) {
      const customers = Array.from({ length: PER_REQUEST }, (_, i) => {
        const n = r * PER_REQUEST + i;
        return { external_id: `V-${n}`, email: `v${n}@example.com`, first_name: `First${n}`, can_email: n % 2 === 0, tags: n % 3 === 0 ? 'vip' : 'regular' };
      });
      const res = await api.call('/api/customers/upload/', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ customers }) });
      expect([res.status, res.body.accepted]).toEqual([200, PER_REQUEST]);
      runs.push(res.body.run_id);
    }
    const accepted = Date.now();
    await eventually(
      async () => {
        const run = await api.call(`/api/runs/${runs[runs.length - 1]}/`, { headers: { authorization: `Bearer ${token}` } });
        if (run.body.state !== 'completed') throw new Error(run.body.state);
      },
      { timeoutMs: 300_000, intervalMs: 200 },
    );
    const projected = Date.now();
    const seen = new Set<string>();
    let duplicates = 0;
    let pages = 0;
    let next: string | undefined = '/api/data/customers/?limit=10000';
    while (next) {
      const page = await api.call(next, { headers: { authorization: `Bearer ${token}` } });
      expect(page.status).toBe(200);
      for (const c of page.body.customers) {
        if (seen.has(c.external_id)) duplicates++;
        seen.add(c.external_id);
      }
      pages++;
      next = page.body.next_url;
    }
    expect(duplicates).toBe(0);
    expect(seen.size).toBe(TOTAL);
    expect(pages).toBe(TOTAL / 10000 + 1);
    process.stderr.write(
      `customer volume: ${TOTAL} accepted in ${((accepted - started) / 1000).toFixed(1)} s, readable after ${((projected - started) / 1000).toFixed(1)} s, read back in ${((Date.now() - projected) / 1000).toFixed(1)} s\n`,
    );
  }, 600_000);
});
