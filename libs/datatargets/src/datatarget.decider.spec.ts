import { AppError } from '#mds/platform';
import { controlled, datatypeOf, liveHead, messagesOf, numberMessages, outletRequest, startingState } from './datatarget.decider';
import { INITIAL_OUTLET_STATE, type OutletState } from './datatarget.events';

const refusal = (fn: () => unknown): { status: number; message: string } | undefined => {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return { status: err.status, message: err.message };
    throw err;
  }
  return undefined;
};

describe('datatargets rules', () => {
  describe('numbering posted messages', () => {
    it('given a datatarget whose last message is 41, when 2,500 messages are posted, then they are 42 to 2541 in chunks of at most 1,000, gap-free', () => {
      const posts = numberMessages('messages', 41, Array.from({ length: 2500 }, (_, n) => ({ n })));
      expect(posts.map((p) => [p.first_message_number, p.last_message_number, p.messages.length])).toEqual([
        [42, 1041, 1000],
        [1042, 2041, 1000],
        [2042, 2541, 500],
      ]);
      expect(posts[2].messages[499]).toEqual({ n: 2499 });
    });

    it('given a datasync datatarget, when messages are posted, then it is a conflict: the service feeds it', () => {
      expect(refusal(() => numberMessages('datasync', 0, [{}]))).toEqual({ status: 409, message: expect.stringMatching(/datasync/) });
    });

    it('given a deleted or unknown datatarget, then nothing can be appended to it', () => {
      expect(refusal(() => liveHead(undefined, 'x'))?.status).toBe(404);
      expect(refusal(() => liveHead({ type: 'DatatargetDeleted', data: { last_message_number: 3 } }, 'x'))?.status).toBe(404);
      expect(liveHead({ type: 'MessagesPosted', data: { last_message_number: 3 } }, 'x')).toEqual({ lastMessageNumber: 3 });
    });

    it('accepts 1 to 10,000 JSON objects and names the first that is not one', () => {
      expect(messagesOf({ messages: [{ a: 1 }] })).toEqual([{ a: 1 }]);
      expect(refusal(() => messagesOf({ messages: [] }))?.message).toMatch(/non-empty/);
      expect(refusal(() => messagesOf({ messages: [{}, [], {}] }))?.message).toBe('messages[1] is not a JSON object');
      expect(refusal(() => messagesOf({ messages: Array.from({ length: 10_001 }, () => ({})) }))?.message).toMatch(/at most 10000/);
      expect(refusal(() => messagesOf({ messages: [{}], extra: 1 }))?.message).toMatch(/Unknown key "extra"/);
    });
  });

  describe('datatarget types', () => {
    it('a datasync datatarget follows one datatype; a messages one none', () => {
      expect(datatypeOf('datasync', 'sales')).toBe('sales');
      expect(datatypeOf('messages', undefined)).toBeNull();
      expect(refusal(() => datatypeOf('datasync', undefined))?.status).toBe(400);
      expect(refusal(() => datatypeOf('messages', 'sales'))?.message).toMatch(/only for datasync/);
    });
  });

  describe('outlet requests', () => {
    it('given a new outlet, when only the url is sent, then it POSTs the message as JSON', () => {
      expect(outletRequest({ url: 'https://example.com/hook' })).toEqual({ url: 'https://example.com/hook', method: 'POST', headers: {}, format: 'json', content: '{(data)}' });
    });

    it('given an outlet, when a patch sends headers only, then the rest stays', () => {
      const current = outletRequest({ url: 'https://example.com/a', method: 'PUT', content: { items: '{(data)}' } });
      expect(outletRequest({ headers: { 'X-Key': 'k' } }, current)).toEqual({ ...current, headers: { 'X-Key': 'k' } });
    });

    it('refuses URLs that cannot or must not be used, and headers the service sets', () => {
      expect(refusal(() => outletRequest({}))?.message).toBe('request.url is required');
      expect(refusal(() => outletRequest({ url: 'not a url' }))?.message).toMatch(/is not a URL/);
      expect(refusal(() => outletRequest({ url: 'file:///etc/passwd' }))?.message).toMatch(/http/);
      expect(refusal(() => outletRequest({ url: 'https://u:p@example.com' }))?.message).toMatch(/credentials/);
      expect(refusal(() => outletRequest({ url: 'https://example.com', headers: { 'Webhook-Signature': 'x' } }))?.message).toMatch(/set by the service/);
    });
  });

  describe('operator controls', () => {
    const failing: OutletState = { ...INITIAL_OUTLET_STATE, last_delivered_message_number: 40, batch_number: 5, failures: 3, failing_since: '2026-01-01T00:00:00.000Z', retry_at: '2026-01-01T01:00:00.000Z' };

    it('given a failing outlet, when it is paused and resumed, then it retries at once and counts failing from the resume', () => {
      const paused = controlled(failing, 'pause', 'T1');
      expect(paused.paused).toBe('operator');
      expect(controlled(paused, 'resume', 'T2')).toEqual({ ...failing, paused: null, retry_at: null, failing_since: 'T2' });
    });

    it('given an outlet waiting for its backoff, when retried, then only the wait goes', () => {
      expect(controlled(failing, 'retry', 'T')).toEqual({ ...failing, retry_at: null });
    });

    it('given an outlet at message 40, when rewound to 10, then message 10 starts a new batch with no failures', () => {
      expect(controlled(failing, 'rewind', 'T', 10)).toEqual({ ...failing, last_delivered_message_number: 9, batch_number: 6, failures: 0, failing_since: null, retry_at: null });
      expect(refusal(() => controlled(failing, 'rewind', 'T', 0))?.status).toBe(400);
    });
  });

  describe('where a new outlet starts', () => {
    it('given a datatarget whose last message is 41, when an outlet starts "now", then its first batch is message 42; from the beginning (or "now" on an empty one) it is the initial state', () => {
      const at = '2026-03-01T10:00:00.000Z';
      expect(startingState('now', 41, at)).toEqual({ ...INITIAL_OUTLET_STATE, last_delivered_message_number: 41 });
      expect(startingState('beginning', 41, at)).toBeUndefined();
      expect(startingState(undefined, 41, at)).toBeUndefined();
      expect(startingState('now', 0, at)).toBeUndefined();
    });

    it('refuses the headers the service sets on a delivery', () => {
      for (const name of ['webhook-first-message', 'Webhook-Last-Message', 'webhook-datatype']) {
        expect(refusal(() => outletRequest({ url: 'https://example.com/', headers: { [name]: '1' } }))).toEqual({ status: 400, message: `request.headers: ${name} is set by the service` });
      }
    });
  });
});
