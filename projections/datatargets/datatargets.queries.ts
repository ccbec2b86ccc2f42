import type { Pool, QueryResultRow } from 'pg';
import { applyMasks, attemptBody, isCredentialParam, isSensitiveHeader, MASK, SEALED, type AttemptRequest, type OutletDefinition, type OutletLogEntry, type OutletState } from '#mds/datatargets';
import { withTransaction } from '#mds/platform';


export interface OutletRow {
  definition: OutletDefinition;
  state: OutletState;
  /** The datatarget's `enabled`: a disabled datatarget holds all its outlets. */
  datatargetEnabled?: boolean;
}

/** What the API shows of an outlet: its request (credentials in headers masked), batching, delivery state. */
export function outletView({ definition: d, state: s }: OutletRow): Record<string, unknown> {
  const headers = Object.fromEntries(Object.entries(d.request.headers).map(([k, v]) => [k, isSensitiveHeader(k) || v === SEALED ? MASK : v]));
  return {
    id: d.outlet_id,
    outlet_type: d.outlet_type,
    enabled: s.paused === null,
    request: { url: maskedUrl(d.request.url), method: d.request.method, headers, format: d.request.format, content: d.request.content },
    is_batched: d.is_batched,
    max_batch_size: d.max_batch_size,
    min_request_interval: d.min_request_interval,
    last_delivered_message_number: s.last_delivered_message_number,
    delivered_batch_count: s.delivered_batch_count,
    signed: d.secret_sealed !== null,
    paused_reason: s.paused,
    failing_since: s.failing_since,
    next_attempt_at: s.retry_at,
    created_at: d.created_at,
  };
}

/** The URL as shown: credential query values masked (sealed in the log; in clear in outlets created before that). */
function maskedUrl(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  let masked = false;
  for (const [name] of [...parsed.searchParams]) {
    if (isCredentialParam(name)) {
      parsed.searchParams.set(name, MASK);
      masked = true;
    }
  }
  return masked ? parsed.toString() : url;
}

interface DatatargetRow {
  datatarget_id: string;
  datatarget_type: string;
  datatype: string | null;
  name: string;
  description: string;
  created_at: string;
  enabled: boolean;
  retention_days: number | null;
  last_message_number: number;
  outlets: OutletRow[];
}

const DATATARGET_SELECT = `
  SELECT d.datatarget_id, d.datatarget_type, d.datatype, d.name, d.description, to_json(d.created_at)#>>'{}' AS created_at, d.enabled, d.retention_days,
         CASE WHEN d.datatarget_type = 'datasync' THEN coalesce((SELECT s.last_message_number FROM datasync_targets s WHERE s.datatarget_id = d.datatarget_id), 0)
              ELSE d.last_message_number END AS last_message_number,
         coalesce((SELECT jsonb_agg(jsonb_build_object('definition', o.definition, 'state', o.state) ORDER BY o.created_at, o.outlet_id)
                     FROM outlets o WHERE o.datatarget_id = d.datatarget_id AND NOT o.is_deleted), '[]') AS outlets
    FROM datatargets d WHERE NOT d.is_deleted`;

export function datatargetView(r: DatatargetRow): Record<string, unknown> {
  return {
    id: r.datatarget_id,
    datatarget_type: r.datatarget_type,
    ...(r.datatype ? { datatype: r.datatype } : {}),
    name: r.name,
    description: r.description,
    created_at: r.created_at,
    enabled: r.enabled,
    retention_days: r.retention_days,
    outlets: r.outlets.map(outletView),
    last_message_number: Number(r.last_message_number),
  };
}

export async function listDatatargets(pool: Pool): Promise<Array<Record<string, unknown>>> {
  const { rows } = await pool.query<DatatargetRow>(`${DATATARGET_SELECT} ORDER BY d.created_at, d.datatarget_id`);
  return rows.map(datatargetView);
}

export async function findDatatarget(pool: Pool, id: string): Promise<(Record<string, unknown> & { id: string; datatarget_type: string }) | undefined> {
  const { rows } = await pool.query<DatatargetRow>(`${DATATARGET_SELECT} AND d.datatarget_id = $1`, [id]);
  return rows[0] ? (datatargetView(rows[0]) as Record<string, unknown> & { id: string; datatarget_type: string }) : undefined;
}

/** The messages after a number, in number order, from both tables (posted and datasync). */
export const READ_MESSAGES_SQL = `(SELECT message_number AS number, message, NULL::text AS after_update FROM datatarget_messages WHERE datatarget_id = $1 AND message_number > $2 ORDER BY message_number LIMIT $3)
     UNION ALL
     (SELECT message_number, message, after_update FROM datasync_messages WHERE datatarget_id = $1 AND message_number > $2 ORDER BY message_number LIMIT $3)
     ORDER BY number LIMIT $3`;

/**
 * Makes a page query (`key > $n ORDER BY key LIMIT $m`) walk its index in key order and stop at the
 * limit. Without statistics for a datatarget or an outlet (messages posted or attempts made since the
 * last ANALYZE) the planner guesses a few hundred rows and collects every row after the key to sort
 * them: a read of 1,000 messages took 24–60 ms over a backlog of 100,000 instead of 0.6 ms, and every
 * read of the backlog paid it.
 */
export const KEY_ORDER_PLAN = 'SET LOCAL enable_sort = off; SET LOCAL enable_bitmapscan = off';

async function inKeyOrder<T extends QueryResultRow>(pool: Pool, sql: string, params: unknown[]): Promise<T[]> {
  return withTransaction(pool, async (client) => {
    await client.query(KEY_ORDER_PLAN);
    return (await client.query<T>(sql, params)).rows;
  });
}

/** Messages after a number, in number order (posted or datasync), with the datasync change's log position. */
export function readMessages(pool: Pool, datatargetId: string, after: number, limit: number): Promise<Array<{ number: number; message: unknown; after_update: string | null }>> {
  return inKeyOrder<{ number: number; message: unknown; after_update: string | null }>(pool, READ_MESSAGES_SQL, [datatargetId, after, limit]);
}

export async function findOutlet(pool: Pool, datatargetId: string, outletId: string): Promise<OutletRow | undefined> {
  const { rows } = await pool.query<OutletRow>(
    `SELECT o.definition, o.state, d.enabled AS "datatargetEnabled" FROM outlets o JOIN datatargets d USING (datatarget_id)
      WHERE o.outlet_id = $1 AND o.datatarget_id = $2 AND NOT o.is_deleted AND NOT d.is_deleted`,
    [outletId, datatargetId],
  );
  return rows[0];
}

/** Outlets a worker may deliver: not deleted, not paused, their datatarget enabled. */
export async function deliverableOutlets(pool: Pool): Promise<OutletRow[]> {
  const { rows } = await pool.query<OutletRow>(
    `SELECT o.definition, o.state FROM outlets o JOIN datatargets d USING (datatarget_id)
      WHERE NOT o.is_deleted AND NOT d.is_deleted AND d.enabled AND o.state->'paused' = 'null'::jsonb
      ORDER BY o.created_at, o.outlet_id`,
  );
  return rows;
}

/**
 * An outlet log's total_count: its last entry number. Entries are numbered 1, 2, 3... by the outlet's
 * own attempts (each at the stream revision the one before it left), so the last number is the count;
 * reading it is one probe of the primary key, where count(*) walked every entry of the outlet on every
 * page (an outlet delivering ten batches a second logs some 860,000 entries a day).
 */
export const OUTLET_LOG_TOTAL_SQL = 'SELECT coalesce(max(entry_number), 0)::int AS n FROM outlet_log WHERE outlet_id = $1';

export async function outletLog(
  pool: Pool,
  outletId: string,
  options: { limit: number; from?: number; order: 'ascending' | 'descending' },
): Promise<{ total: number; entries: OutletLogEntry[] }> {
  const asc = options.order === 'ascending';
  const params: unknown[] = [outletId, options.limit];
  const bound = options.from === undefined ? '' : `AND entry_number ${asc ? '>=' : '<='} $3`;
  if (options.from !== undefined) params.push(options.from);
  const [rows, count] = await Promise.all([
    inKeyOrder<{ entry: OutletLogEntry }>(pool, `SELECT entry FROM outlet_log WHERE outlet_id = $1 ${bound} ORDER BY entry_number ${asc ? 'ASC' : 'DESC'} LIMIT $2`, params),
    pool.query<{ n: number }>(OUTLET_LOG_TOTAL_SQL, [outletId]),
  ]);
  return { total: count.rows[0].n, entries: rows.map((r) => r.entry) };
}

/**
 * One outlet log entry with its raw texts. An attempt recorded by reference (`request`) gets its
 * request text rebuilt here: the head as sent, then the body from its template and messages, the
 * same function the worker rendered it with, so the text is what the receiver got (secrets masked).
 */
export async function outletLogEntry(pool: Pool, datatargetId: string, outletId: string, entryNumber: number): Promise<Record<string, unknown> | undefined> {
  const { rows } = await pool.query<{ entry: OutletLogEntry; request: AttemptRequest | null; http_request: string | null; http_reply: string | null }>(
    'SELECT entry, request, http_request, http_reply FROM outlet_log WHERE outlet_id = $1 AND entry_number = $2',
    [outletId, entryNumber],
  );
  if (!rows[0]) return undefined;
  const { entry, request: sent, http_reply: reply } = rows[0];
  const request = rows[0].http_request ?? (sent ? await rebuiltRequest(pool, datatargetId, outletId, sent) : null);
  return { ...entry, ...(request !== null ? { http_request: request } : {}), ...(reply !== null ? { http_reply: reply } : {}) };
}

async function rebuiltRequest(pool: Pool, datatargetId: string, outletId: string, sent: AttemptRequest): Promise<string> {
  if (!sent.body) return sent.head;
  const [first, last] = sent.messages;
  const [template, messages] = await Promise.all([
    pool.query<{ content: unknown }>('SELECT content FROM outlet_templates WHERE outlet_id = $1 AND template = $2', [outletId, sent.template]),
    readMessages(pool, datatargetId, first - 1, last - first + 1),
  ]);
  if (template.rows.length === 0) return `${sent.head}[body not available: template ${sent.template} is not kept]`;
  if (messages.length !== last - first + 1) return `${sent.head}[body not available: messages ${first} to ${last} are no longer all kept]`;
  return sent.head + applyMasks(attemptBody(sent, template.rows[0].content, messages.map((m) => m.message)), sent.masks ?? []);
}
