import { createHash } from 'node:crypto';
import type { DeliveryResult } from '../delivery/webhook-client';
import {
  attemptEventId,
  DELIVERY_ATTEMPTED,
  DELIVERY_ATTEMPTED_SCHEMA,
  OUTLET_CONTROLLED,
  type DeliveryAttempted,
  type OutletControlled,
  type OutletDefinition,
  type OutletLogEntry,
  type OutletState,
} from '../datatarget.events';
import { metadataOf, type CommandMeta } from '../datatarget.decider';
import { stateAfterAttempt, templateKey, type BackoffPolicy } from '../outlet-delivery';
import type { OutletStreamEvent } from './attempt-log';

/** The `webhook-id` of the outlet's current batch: its retries keep it, so receivers deduplicate them. */
export const webhookIdOf = (outletId: string, state: Pick<OutletState, 'batch_number'>) => `msg_${outletId}_${state.batch_number}`;

/** What a worker gathered about one delivery attempt: the outlet, the batch it sent, and what came back. */
export interface AttemptMade {
  outletId: string;
  definition: Pick<OutletDefinition, 'datatarget_id' | 'is_batched' | 'request'>;
  /** The outlet's state before the attempt. */
  state: OutletState;
  /** The batch sent: its first and last message numbers and size; `afterUpdate` for a datasync batch (the change delivered before it, "" before the first). */
  batch: { first: number; last: number; size: number; afterUpdate?: string };
  result: Pick<DeliveryResult, 'ok' | 'startedAt' | 'httpStatus' | 'failReason' | 'refused' | 'retryAfterMs' | 'requestTimeMs' | 'requestHead' | 'bodyMasks' | 'signature' | 'rawReply'>;
  /** The sub-millisecond part of the worker's clock when the request started (the log entry's date has microseconds). */
  startedAtFraction: number;
  /** When the worker decides (the time an automatic pause is recorded at). */
  now: Date;
}

export interface AttemptDecision {
  /** The outlet's state after the attempt (after the pause, when it paused itself). */
  state: OutletState;
  /** True when the outlet has failed for longer than the policy allows and pauses itself. */
  pause: boolean;
  entry: OutletLogEntry;
  /** What the worker appends to the outlet's stream: the attempt, then the pause when there is one. */
  events: OutletStreamEvent[];
}

/** The reply's size and hash in the event, its text kept apart from the log (`replies`). */
function replyOf(rawReply: string | undefined): Pick<DeliveryAttempted, 'reply' | 'replies'> {
  if (rawReply === undefined) return { reply: null };
  return { reply: { bytes: Buffer.byteLength(rawReply), sha256: createHash('sha256').update(rawReply).digest('hex') }, replies: [rawReply] };
}

/** UTC with microseconds, as the spec's log entry date. */
export function microIso(epochMs: number): string {
  const ms = Math.floor(epochMs);
  const micro = Math.floor((epochMs - ms) * 1000);
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, (_, m: string) => `.${m}${String(micro).padStart(3, '0')}Z`);
}

/**
 * What an attempt means for the outlet: its next state (past the batch, or the batch kept with a
 * backoff), its log entry, the DeliveryAttempted event (the request by reference, the reply kept
 * apart), and an OutletControlled pause when it has been failing too long. Pure: the worker sends,
 * gathers the inputs, and appends what this decides. `random` is the backoff's jitter.
 */
export function decideAttempt(made: AttemptMade, policy: BackoffPolicy, random: () => number = Math.random): AttemptDecision {
  const { outletId, definition: def, state, batch, result } = made;
  const { state: next, pause } = stateAfterAttempt(state, { ok: result.ok, at: result.startedAt, lastMessageNumber: batch.last, retryAfterMs: result.retryAfterMs }, policy, random);
  const entryNumber = state.entry_count + 1;
  const entry: OutletLogEntry = {
    entry_number: entryNumber,
    entry_key: `${outletId}:${entryNumber}`,
    // The client's start time (the one throttling and backoff count from), with the microseconds of the worker's clock.
    date: microIso(result.startedAt.getTime() + made.startedAtFraction),
    batch_number: state.batch_number,
    batch_size: batch.size,
    ...(batch.afterUpdate !== undefined ? { after_update: batch.afterUpdate } : { first_message_number: batch.first }),
    status: result.ok ? 'OK' : 'FAIL',
    ...(result.httpStatus !== undefined ? { http_status: result.httpStatus } : {}),
    ...(result.failReason ? { fail_reason: result.failReason } : {}),
    request_time_ms: Math.round(result.requestTimeMs),
    http_request_available: !result.refused,
  };
  const attempted: DeliveryAttempted = {
    outlet_id: outletId,
    datatarget_id: def.datatarget_id,
    entry,
    last_message_number: batch.last,
    webhook_id: webhookIdOf(outletId, state),
    // The body is the messages through the template (where masked, said by offsets): kept by reference.
    request: { head: result.requestHead, template: templateKey(def.request.content), batched: def.is_batched, messages: [batch.first, batch.last], body: def.request.method !== 'GET', ...(result.bodyMasks ? { masks: result.bodyMasks } : {}) },
    ...(result.signature !== undefined ? { signature: result.signature } : {}),
    ...replyOf(result.rawReply),
    state: next,
  };
  const events: OutletStreamEvent[] = [
    { id: attemptEventId(outletId, entryNumber), type: DELIVERY_ATTEMPTED, data: attempted, metadata: { actor: 'outlet-worker', schema: DELIVERY_ATTEMPTED_SCHEMA } },
  ];
  if (!pause) return { state: next, pause, entry, events };
  const paused: OutletControlled = { outlet_id: outletId, action: 'paused_failing', by: 'outlet-worker', at: made.now.toISOString(), state: { ...next, paused: 'failing' } };
  events.push({ type: OUTLET_CONTROLLED, data: paused, metadata: { actor: 'outlet-worker' } });
  return { state: paused.state, pause, entry, events };
}

/** What a test send gathered: the outlet, its state when the attempt is recorded, and what came back. */
export interface TestAttemptMade {
  outletId: string;
  datatargetId: string;
  state: OutletState;
  webhookId: string;
  result: Pick<DeliveryResult, 'ok' | 'startedAt' | 'httpStatus' | 'failReason' | 'refused' | 'requestTimeMs' | 'rawRequest' | 'signature' | 'rawReply'>;
  startedAtFraction: number;
  /** Who asked for it (recorded in the event's metadata, as for an operator's control). */
  meta: CommandMeta;
}

/**
 * A test send in the outlet's log: an entry marked `test`, numbered after the others, with the whole
 * request text (a sample, none of the datatarget's messages, so nothing to keep by reference). Only
 * the entry count moves: not the delivery position, the batch, the failures or the backoff.
 */
export function decideTestAttempt(made: TestAttemptMade): { entry: OutletLogEntry; events: OutletStreamEvent[] } {
  const { outletId, state, result } = made;
  const entryNumber = state.entry_count + 1;
  const entry: OutletLogEntry = {
    entry_number: entryNumber,
    entry_key: `${outletId}:${entryNumber}`,
    date: microIso(result.startedAt.getTime() + made.startedAtFraction),
    batch_number: 0,
    batch_size: 1,
    status: result.ok ? 'OK' : 'FAIL',
    ...(result.httpStatus !== undefined ? { http_status: result.httpStatus } : {}),
    ...(result.failReason ? { fail_reason: result.failReason } : {}),
    request_time_ms: Math.round(result.requestTimeMs),
    http_request_available: !result.refused,
    test: true,
  };
  const attempted: DeliveryAttempted = {
    outlet_id: outletId,
    datatarget_id: made.datatargetId,
    entry,
    last_message_number: state.last_delivered_message_number,
    webhook_id: made.webhookId,
    http_request: result.rawRequest,
    ...(result.signature !== undefined ? { signature: result.signature } : {}),
    ...replyOf(result.rawReply),
    state: { ...state, entry_count: entryNumber },
  };
  return { entry, events: [{ id: attemptEventId(outletId, entryNumber), type: DELIVERY_ATTEMPTED, data: attempted, metadata: { ...metadataOf(made.meta), schema: DELIVERY_ATTEMPTED_SCHEMA } }] };
}
