import { backoffMs, INITIAL_OUTLET_STATE, renderContent, stateAfterAttempt } from '.';

const policy = { baseMs: 1000, maxMs: 60_000, pauseAfterMs: 3 * 24 * 3600 * 1000 };

describe('request templates', () => {
  it('puts the data where the placeholder is, nested, and as JSON text inside longer strings', () => {
    const data = [{ n: 1 }, { n: 2 }];
    expect(renderContent({ a: { b: ['x', '{(data)}'] }, note: 'got {(data)}!', n: 3 }, data)).toEqual({ a: { b: ['x', data] }, note: 'got [{"n":1},{"n":2}]!', n: 3 });
    expect(renderContent('{(data)}', { n: 1 })).toEqual({ n: 1 });
    expect(renderContent({ fixed: true }, data)).toEqual({ fixed: true });
  });
});

describe('retries', () => {
  it('backs off exponentially with jitter in [0.5, 1) of the capped delay', () => {
    expect(backoffMs(1, policy, () => 0)).toBe(500);
    expect(backoffMs(1, policy, () => 0.999)).toBe(1000);
    expect(backoffMs(4, policy, () => 0)).toBe(4000);
    expect(backoffMs(30, policy, () => 1)).toBe(60_000);
  });

  it('keeps the batch on failure, honours a later Retry-After, and moves on after success', () => {
    const at = new Date('2024-01-01T00:00:00Z');
    const failed = stateAfterAttempt(INITIAL_OUTLET_STATE, { ok: false, at, lastMessageNumber: 100, retryAfterMs: 120_000 }, policy, () => 0);
    expect(failed.state).toMatchObject({ last_delivered_message_number: 0, batch_number: 1, failures: 1, entry_count: 1, failing_since: at.toISOString(), retry_at: '2024-01-01T00:02:00.000Z' });
    const ok = stateAfterAttempt(failed.state, { ok: true, at, lastMessageNumber: 100 }, policy);
    expect(ok.state).toMatchObject({ last_delivered_message_number: 100, delivered_batch_count: 1, batch_number: 2, failures: 0, failing_since: null, retry_at: null, entry_count: 2 });
  });

  it('pauses once it has been failing longer than allowed', () => {
    const since = new Date('2024-01-01T00:00:00Z');
    const first = stateAfterAttempt(INITIAL_OUTLET_STATE, { ok: false, at: since, lastMessageNumber: 1 }, policy);
    expect(first.pause).toBe(false);
    const later = stateAfterAttempt(first.state, { ok: false, at: new Date(since.getTime() + policy.pauseAfterMs), lastMessageNumber: 1 }, policy);
    expect(later.pause).toBe(true);
    expect(later.state.failing_since).toBe(since.toISOString());
  });
});
