import { createHash } from 'node:crypto';
import { canonicalJson } from '#mds/platform';
import type { AttemptRequest, OutletState } from './datatarget.events';

export const DATA_PLACEHOLDER = '{(data)}';

/**
 * The request body: the template with `{(data)}` replaced, wherever it sits (nested in objects and
 * lists). A string that is exactly the placeholder becomes the data itself (the list of messages, or
 * the message); a placeholder inside a longer string becomes the data's JSON text there.
 */
export function renderContent(template: unknown, data: unknown): unknown {
  if (typeof template === 'string') {
    if (template === DATA_PLACEHOLDER) return data;
    return template.includes(DATA_PLACEHOLDER) ? template.split(DATA_PLACEHOLDER).join(JSON.stringify(data)) : template;
  }
  if (Array.isArray(template)) return template.map((t) => renderContent(t, data));
  if (typeof template === 'object' && template !== null) return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, renderContent(v, data)]));
  return template;
}

/** A content template's key: attempts name the template they rendered by it. */
export const templateKey = (content: unknown) => createHash('sha256').update(canonicalJson(content ?? null)).digest('hex').slice(0, 32);

/** The body an attempt sent: its template over its messages (all of them batched, else the one). */
export function attemptBody(request: Pick<AttemptRequest, 'batched' | 'body'>, template: unknown, messages: unknown[]): string {
  return request.body ? JSON.stringify(renderContent(template, request.batched ? messages : messages[0])) : '';
}

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  pauseAfterMs: number;
}

/** Exponential backoff with full jitter in its upper half: base·2^(failures−1), capped, × [0.5, 1). */
export function backoffMs(failures: number, policy: BackoffPolicy, random = Math.random): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(failures - 1, 40));
  return Math.round(ceiling * (0.5 + random() / 2));
}

/**
 * The outlet's state after an attempt at `batch` (first..last message numbers): success moves past
 * the batch and starts the next one; failure keeps the batch, counts the failure and sets when to
 * retry (the backoff, or the server's Retry-After when later). `pause` is true when it has now been
 * failing for longer than the policy allows.
 */
export function stateAfterAttempt(
  state: OutletState,
  attempt: { ok: boolean; at: Date; lastMessageNumber: number; retryAfterMs?: number },
  policy: BackoffPolicy,
  random = Math.random,
): { state: OutletState; pause: boolean } {
  const at = attempt.at.toISOString();
  if (attempt.ok) {
    return {
      state: {
        ...state,
        last_delivered_message_number: attempt.lastMessageNumber,
        delivered_batch_count: state.delivered_batch_count + 1,
        entry_count: state.entry_count + 1,
        batch_number: state.batch_number + 1,
        failures: 0,
        failing_since: null,
        retry_at: null,
        last_attempt_at: at,
      },
      pause: false,
    };
  }
  const failures = state.failures + 1;
  const failingSince = state.failing_since ?? at;
  // A server's Retry-After wins when later, up to a day (a hostile or broken value cannot park the outlet for good).
  const wait = Math.max(backoffMs(failures, policy, random), Math.min(attempt.retryAfterMs ?? 0, 86_400_000));
  const pause = attempt.at.getTime() - Date.parse(failingSince) >= policy.pauseAfterMs;
  return {
    state: {
      ...state,
      entry_count: state.entry_count + 1,
      failures,
      failing_since: failingSince,
      retry_at: new Date(attempt.at.getTime() + wait).toISOString(),
      last_attempt_at: at,
    },
    pause,
  };
}
