import { createHash } from 'node:crypto';
import { attemptEventId, DELIVERY_ATTEMPTED, INITIAL_OUTLET_STATE, OUTLET_CONTROLLED, type DeliveryAttempted, type OutletControlled, type OutletState } from '../datatarget.events';
import { templateKey } from '../outlet-delivery';
import { decideAttempt, decideTestAttempt, microIso, webhookIdOf, type AttemptMade } from './attempt.decider';

const POLICY = { baseMs: 1000, maxMs: 60_000, pauseAfterMs: 3_600_000 };
const noJitter = () => 0.999_999;
const at = new Date('2026-03-01T10:00:00.123Z');

/** Given an outlet in `state`, when an attempt at messages 11..20 came back with `result`. */
function attempt(state: Partial<OutletState>, result: Partial<AttemptMade['result']>, batch: Partial<AttemptMade['batch']> = {}): AttemptMade {
  return {
    outletId: 'o1',
    definition: { datatarget_id: 'd1', is_batched: true, request: { url: 'https://example.com/hook', method: 'POST', headers: {}, format: 'json', content: { items: '{(data)}' } } },
    state: { ...INITIAL_OUTLET_STATE, ...state },
    batch: { first: 11, last: 20, size: 10, ...batch },
    result: { ok: true, startedAt: at, httpStatus: 200, requestTimeMs: 41.6, requestHead: 'POST /hook HTTP/1.1\r\n\r\n', rawReply: 'HTTP/1.1 200 OK\r\n\r\nthanks', ...result },
    startedAtFraction: 0.456,
    now: new Date('2026-03-01T10:00:01Z'),
  };
}

describe('deciding what a delivery attempt means for its outlet', () => {
  it('given an outlet delivered up to 10, when the batch 11..20 succeeds, then it moves past the batch and records an OK attempt', () => {
    const decided = decideAttempt(attempt({ last_delivered_message_number: 10, delivered_batch_count: 1, entry_count: 1, batch_number: 2 }, {}), POLICY, noJitter);
    expect(decided.pause).toBe(false);
    expect(decided.state).toEqual({ ...INITIAL_OUTLET_STATE, last_delivered_message_number: 20, delivered_batch_count: 2, entry_count: 2, batch_number: 3, last_attempt_at: at.toISOString() });
    expect(decided.events).toHaveLength(1);
    const [event] = decided.events;
    expect(event).toMatchObject({ id: attemptEventId('o1', 2), type: DELIVERY_ATTEMPTED, metadata: { actor: 'outlet-worker', schema: 2 } });
    const data = event.data as DeliveryAttempted;
    expect(data.entry).toEqual({
      entry_number: 2,
      entry_key: 'o1:2',
      date: '2026-03-01T10:00:00.123456Z',
      batch_number: 2,
      batch_size: 10,
      first_message_number: 11,
      status: 'OK',
      http_status: 200,
      request_time_ms: 42,
      http_request_available: true,
    });
    expect(data).toMatchObject({ outlet_id: 'o1', datatarget_id: 'd1', last_message_number: 20, webhook_id: 'msg_o1_2', state: decided.state });
    // The request by reference (the messages through the template), the reply's text kept apart from the log.
    expect(data.request).toEqual({ head: 'POST /hook HTTP/1.1\r\n\r\n', template: templateKey({ items: '{(data)}' }), batched: true, messages: [11, 20], body: true });
    expect(data.reply).toEqual({ bytes: 25, sha256: createHash('sha256').update('HTTP/1.1 200 OK\r\n\r\nthanks').digest('hex') });
    expect(data.replies).toEqual(['HTTP/1.1 200 OK\r\n\r\nthanks']);
  });

  it('given a batch being delivered, when it fails, then the batch is kept for a retry after the backoff and the attempt says why', () => {
    const decided = decideAttempt(attempt({ last_delivered_message_number: 10, entry_count: 3, batch_number: 2, failures: 1, failing_since: '2026-03-01T09:59:00.000Z' }, { ok: false, httpStatus: 503, failReason: 'HTTP 503', rawReply: undefined }), POLICY, noJitter);
    expect(decided.pause).toBe(false);
    expect(decided.state).toMatchObject({ last_delivered_message_number: 10, batch_number: 2, entry_count: 4, failures: 2, failing_since: '2026-03-01T09:59:00.000Z', retry_at: new Date(at.getTime() + 2000).toISOString() });
    const data = decided.events[0].data as DeliveryAttempted;
    expect(data.entry).toMatchObject({ entry_number: 4, batch_number: 2, status: 'FAIL', http_status: 503, fail_reason: 'HTTP 503' });
    // Retries of one batch keep its webhook id: receivers deduplicate on it.
    expect(data.webhook_id).toBe(webhookIdOf('o1', { batch_number: 2 }));
    expect(data.reply).toBeNull();
    expect(data).not.toHaveProperty('replies');
  });

  it('given a failing outlet, when the server asks to retry later than the backoff, then Retry-After wins (up to a day)', () => {
    const later = decideAttempt(attempt({}, { ok: false, retryAfterMs: 120_000 }), POLICY, noJitter);
    expect(later.state.retry_at).toBe(new Date(at.getTime() + 120_000).toISOString());
    const tooLate = decideAttempt(attempt({}, { ok: false, retryAfterMs: 7 * 86_400_000 }), POLICY, noJitter);
    expect(tooLate.state.retry_at).toBe(new Date(at.getTime() + 86_400_000).toISOString());
  });

  it('given an outlet failing for longer than the policy allows, when it fails again, then it pauses itself with an OutletControlled after the attempt', () => {
    const decided = decideAttempt(attempt({ failures: 9, failing_since: '2026-03-01T08:00:00.000Z', entry_count: 9 }, { ok: false, failReason: 'connection refused', httpStatus: undefined }), POLICY, noJitter);
    expect(decided.pause).toBe(true);
    expect(decided.events.map((e) => e.type)).toEqual([DELIVERY_ATTEMPTED, OUTLET_CONTROLLED]);
    const paused = decided.events[1].data as OutletControlled;
    expect(paused).toEqual({ outlet_id: 'o1', action: 'paused_failing', by: 'outlet-worker', at: '2026-03-01T10:00:01.000Z', state: { ...(decided.events[0].data as DeliveryAttempted).state, paused: 'failing' } });
    expect(decided.state.paused).toBe('failing');
    expect((decided.events[0].data as DeliveryAttempted).entry).not.toHaveProperty('http_status');
  });

  it('given a datasync batch, then the entry names the change delivered before it instead of a first message number', () => {
    const data = decideAttempt(attempt({}, {}, { afterUpdate: '' }), POLICY, noJitter).events[0].data as DeliveryAttempted;
    expect(data.entry.after_update).toBe('');
    expect(data.entry).not.toHaveProperty('first_message_number');
  });

  it('given a request the destination check refused, then its request text is not available and nothing else changes', () => {
    const data = decideAttempt(attempt({}, { ok: false, refused: true, failReason: 'destination not allowed', rawReply: undefined }), POLICY, noJitter).events[0].data as DeliveryAttempted;
    expect(data.entry.http_request_available).toBe(false);
  });

  it('given a GET outlet with masked secrets and a signature, then the attempt says the request had no body, where it was masked, and the signature', () => {
    const made = attempt({}, { bodyMasks: [[3, 8]], signature: 'v1,abc' });
    made.definition.request = { ...made.definition.request, method: 'GET' };
    const data = decideAttempt(made, POLICY, noJitter).events[0].data as DeliveryAttempted;
    expect(data.request).toMatchObject({ body: false, masks: [[3, 8]] });
    expect(data.signature).toBe('v1,abc');
  });

  it('writes log dates in UTC with microseconds', () => {
    expect(microIso(Date.parse('2026-01-02T03:04:05.006Z') + 0.789)).toBe('2026-01-02T03:04:05.006789Z');
  });

  it('given a failing outlet 3 entries in, when a test send comes back 200, then it is entry 4, marked test, and nothing but the entry count moves', () => {
    const state: OutletState = { ...INITIAL_OUTLET_STATE, last_delivered_message_number: 10, delivered_batch_count: 1, entry_count: 3, batch_number: 2, failures: 2, failing_since: '2026-03-01T09:00:00.000Z', retry_at: '2026-03-01T10:05:00.000Z', last_attempt_at: '2026-03-01T09:59:00.000Z' };
    const raw = 'POST /hook HTTP/1.1\r\nwebhook-id: msg_o1_test_x\r\n\r\n{"test":true}';
    const { entry, events } = decideTestAttempt({
      outletId: 'o1',
      datatargetId: 'd1',
      state,
      webhookId: 'msg_o1_test_x',
      result: { ok: true, startedAt: at, httpStatus: 200, requestTimeMs: 7.4, rawRequest: raw, signature: 'v1,abc', rawReply: 'HTTP/1.1 200 OK\r\n\r\n' },
      startedAtFraction: 0.5,
      meta: { actor: 'users/admin', tokenId: 't1', requestId: 'req-1' },
    });
    expect(entry).toEqual({ entry_number: 4, entry_key: 'o1:4', date: '2026-03-01T10:00:00.123500Z', batch_number: 0, batch_size: 1, status: 'OK', http_status: 200, request_time_ms: 7, http_request_available: true, test: true });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ id: attemptEventId('o1', 4), type: DELIVERY_ATTEMPTED, metadata: { actor: 'users/admin', token_id: 't1', request_id: 'req-1', schema: 2 } });
    const data = events[0].data as DeliveryAttempted;
    expect(data.state).toEqual({ ...state, entry_count: 4 });
    // A sample, not messages of the datatarget: the request is kept whole, not by reference.
    expect(data).toMatchObject({ entry, webhook_id: 'msg_o1_test_x', http_request: raw, signature: 'v1,abc', replies: ['HTTP/1.1 200 OK\r\n\r\n'], last_message_number: 10 });
    expect(data).not.toHaveProperty('request');
  });

  it('given a test send the destination check refused, then it is a FAIL saying why, and the failures of the outlet stay as they were', () => {
    const { entry, events } = decideTestAttempt({
      outletId: 'o1',
      datatargetId: 'd1',
      state: INITIAL_OUTLET_STATE,
      webhookId: 'msg_o1_test_y',
      result: { ok: false, refused: true, failReason: 'destination refused: 10.0.0.1 is a private address', startedAt: at, requestTimeMs: 0, rawRequest: 'POST /hook HTTP/1.1\r\n\r\n' },
      startedAtFraction: 0,
      meta: { actor: 'users/admin' },
    });
    expect(entry).toMatchObject({ entry_number: 1, status: 'FAIL', fail_reason: 'destination refused: 10.0.0.1 is a private address', http_request_available: false, test: true });
    expect(entry).not.toHaveProperty('http_status');
    expect((events[0].data as DeliveryAttempted).state).toEqual({ ...INITIAL_OUTLET_STATE, entry_count: 1 });
    expect((events[0].data as DeliveryAttempted).reply).toBeNull();
  });
});
