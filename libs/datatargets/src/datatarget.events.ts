import { createHash } from 'node:crypto';
/**
 * Events of the datatargets context. `datatarget-<id>` holds a datatarget's definition, its posted
 * messages and its outlets' definitions; every event there carries `last_message_number` (the number
 * of the last message posted so far), so a command reads one event to know where numbering stands.
 * `outlet-<id>` holds what happens to an outlet: delivery attempts and operator controls, each
 * carrying the outlet's state after it.
 */
export const DATATARGET_CREATED = 'DatatargetCreated';
export const DATATARGET_CHANGED = 'DatatargetChanged';
export const DATATARGET_DELETED = 'DatatargetDeleted';
export const MESSAGES_POSTED = 'MessagesPosted';
export const OUTLET_CREATED = 'OutletCreated';
export const OUTLET_CHANGED = 'OutletChanged';
/** Schema of OutletCreated and OutletChanged: 2 seals the request's credentials (credentials_sealed). */
export const OUTLET_SCHEMA = 2;
export const OUTLET_DELETED = 'OutletDeleted';
export const DELIVERY_ATTEMPTED = 'DeliveryAttempted';
export const OUTLET_CONTROLLED = 'OutletControlled';

export const datatargetStream = (id: string) => `datatarget-${id}`;
export const outletStream = (id: string) => `outlet-${id}`;

export const DATASYNC_DATATYPES = ['customers', 'products', 'events', 'sales'] as const;

export interface DatatargetCreated {
  datatarget_id: string;
  datatarget_type: 'messages' | 'datasync';
  datatype: string | null;
  name: string;
  description: string;
  created_at: string;
  last_message_number: number;
  /** Days after which delivered messages' payloads are dropped (absent or null: kept). */
  retention_days?: number | null;
}

export interface DatatargetChanged {
  changes: { name?: string; description?: string; enabled?: boolean; retention_days?: number | null };
  last_message_number: number;
}

export interface MessagesPosted {
  first_message_number: number;
  messages: unknown[];
  last_message_number: number;
}

/** What an outlet sends: the request template and batching. */
export interface OutletDefinition {
  outlet_id: string;
  datatarget_id: string;
  outlet_type: 'webhook';
  request: { url: string; method: string; headers: Record<string, string>; format: 'json'; content: unknown };
  is_batched: boolean;
  max_batch_size: number;
  /** Seconds between two requests, as a string like the spec's "0". */
  min_request_interval: string;
  /** Standard Webhooks signing secret, sealed (never stored in clear, never shown). */
  secret_sealed: string | null;
  /**
   * The request's credentials (header values and URL query values: outlet-credentials.ts), sealed;
   * the request holds "[sealed]" in their place. Absent in events before they were sealed (an
   * upcaster seals those on read).
   */
  credentials_sealed?: string | null;
  created_at: string;
}

export interface OutletCreated {
  outlet: OutletDefinition;
  last_message_number: number;
  /**
   * The delivery state it starts from when it does not start at message 1 (`start: "now"`); the
   * outlet stream's first event, a `start` control appended just before, carries the same.
   */
  state?: OutletState;
}

export interface OutletChanged {
  outlet_id: string;
  changes: Partial<Pick<OutletDefinition, 'request' | 'is_batched' | 'max_batch_size' | 'min_request_interval' | 'secret_sealed' | 'credentials_sealed'>>;
  last_message_number: number;
}

/** An outlet's delivery state, carried by every event of its stream (the state after the event). */
export interface OutletState {
  last_delivered_message_number: number;
  delivered_batch_count: number;
  /** Log entries so far (an entry_number is this plus one). */
  entry_count: number;
  /** Number of the batch being delivered (retries keep it, so webhook-id stays stable). */
  batch_number: number;
  /** Consecutive failed attempts of the current batch. */
  failures: number;
  failing_since: string | null;
  /** Not before this time (backoff, Retry-After); null: now. */
  retry_at: string | null;
  /** null: delivering; `operator`: paused by hand; `failing`: paused itself after failing too long. */
  paused: null | 'operator' | 'failing';
  last_attempt_at: string | null;
}

export const INITIAL_OUTLET_STATE: OutletState = {
  last_delivered_message_number: 0,
  delivered_batch_count: 0,
  entry_count: 0,
  batch_number: 1,
  failures: 0,
  failing_since: null,
  retry_at: null,
  paused: null,
  last_attempt_at: null,
};

/** One outlet log entry as the spec lists it (the raw texts travel beside it). */
export interface OutletLogEntry {
  entry_number: number;
  entry_key: string;
  date: string;
  batch_number: number;
  batch_size: number;
  first_message_number?: number;
  after_update?: string;
  status: 'OK' | 'FAIL';
  http_status?: number;
  fail_reason?: string;
  request_time_ms: number;
  http_request_available: boolean;
  /** A test send (a sample message, not the outlet's): it moves neither the delivery nor the failures. */
  test?: true;
}

/**
 * What an attempt sent, by reference: the request line and header block as sent (masked), and what
 * the body was made of, the outlet's content template (by its key: templateKey) over the messages
 * `messages[0]` to `messages[1]`, so the body is not stored a second time beside the messages.
 */
export interface AttemptRequest {
  head: string;
  template: string;
  batched: boolean;
  messages: [number, number];
  /** False for a GET, which carries no body. */
  body: boolean;
  /** Where the body as sent had a secret masked (`[offset, length]`, a message carrying one). */
  masks?: Array<[number, number]>;
}

export interface DeliveryAttempted {
  outlet_id: string;
  datatarget_id: string;
  entry: OutletLogEntry;
  last_message_number: number;
  webhook_id: string;
  /** The request by reference (attempts since it exists), rebuilt when the log entry is read. */
  request?: AttemptRequest;
  /** The whole request text: attempts recorded before requests were kept by reference. */
  http_request?: string;
  /** The `webhook-signature` sent, when signed. */
  signature?: string;
  /** The reply's size and SHA-256 (null: no reply); its text is kept beside the log (`replies`). */
  reply?: { bytes: number; sha256: string } | null;
  /**
   * `[text]` of the reply (capped at 64 KiB), which the log never holds: kept apart as a whole list
   * (PERSONAL_FIELDS), where forgetting and a datatarget's retention_days reach it. A receiver may echo
   * what it got: a person's whole record.
   */
  replies?: [string];
  /** Schema 1: the reply text, in the log (an upcaster turns it into `reply` for readers). */
  http_reply?: string | null;
  state: OutletState;
}

/** Schema of DeliveryAttempted: 2 keeps the reply's text beside the log (1 held it in the event). */
export const DELIVERY_ATTEMPTED_SCHEMA = 2;

/**
 * The id of an outlet's attempt, derived from the outlet and the entry number: a retried append of
 * the same attempt is the same event, and forgetting and retention find the reply kept beside it as
 * PostgreSQL computes the same id (`md5('attempt:' || outlet_id || ':' || entry_number)::uuid`).
 */
export function attemptEventId(outletId: string, entryNumber: number): string {
  const h = createHash('md5').update(`attempt:${outletId}:${entryNumber}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** attemptEventId in SQL, of the expressions naming the outlet and the entry number. */
export const ATTEMPT_EVENT_ID_SQL = (outletId: string, entryNumber: string) => `md5('attempt:' || ${outletId} || ':' || ${entryNumber})::uuid`;

export interface OutletControlled {
  outlet_id: string;
  /** `start`: a new outlet starting after the messages already there (created with `start: "now"`). */
  action: 'pause' | 'resume' | 'retry' | 'rewind' | 'paused_failing' | 'start';
  to_message_number?: number;
  by: string;
  at: string;
  state: OutletState;
}
