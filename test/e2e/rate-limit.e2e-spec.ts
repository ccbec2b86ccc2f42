import { seedUserToken, startTestApi, type TestApi } from '../support/api';

describe('rate limiting per token', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi({ env: { MDS_RATE_LIMIT_PER_MINUTE: '5' } });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('answers 429 in the error envelope with Retry-After and RateLimit headers once a token exceeds its limit', async () => {
    const a = await seedUserToken(api.rt, 'busy', ['admin']);
    const b = await seedUserToken(api.rt, 'calm', ['admin']);
    const get = (token: string) => api.call('/metrics', { headers: { authorization: `Bearer ${token}` } });
    // The windows are whole minutes: do not start the six requests just before one ends.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await get(a.token);
      seen.push(res.status);
      expect(res.headers.get('ratelimit-limit')).toBe('5');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(4 - i));
    }
    expect(seen).toEqual([200, 200, 200, 200, 200]);
    const limited = await get(a.token);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(/Rate limit of 5 requests a minute/) } });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-reset')).toBe(String(retryAfter));
    // Another token has its own budget.
    expect((await get(b.token)).status).toBe(200);
  });
});
