import type { Pool } from 'pg';
import { ATTEMPT_EVENT_ID_SQL } from '#mds/datatargets';
import { withTransaction } from '#mds/platform';
import { qualified, schemasOf } from '../runtime/read-model-schemas';

/** What an expired message reads as, in the API, the outlet log and the log's readers. */
export const EXPIRED_MESSAGE = '[expired]';

/** Posts expired per sweep at most; the next sweep takes the rest. */
const POSTS_PER_SWEEP = 1000;

/**
 * A datatarget's `retention_days` (README "Forgetting"): the messages clients posted are their own
 * payloads, kept whole beside the log (PERSONAL_FIELDS: MessagesPosted). Once every message of a post
 * is older than the datatarget's retention and delivered by every one of its outlets, the post's kept
 * list and its messages in every generation of the read model become EXPIRED_MESSAGE. A message no
 * outlet has delivered (or of a datatarget without outlets, which clients poll) is never dropped.
 * Like a forgetting, it holds the personal-data lock and moves the epoch, so no projection commits a
 * page it read before. Returns the posts and messages expired.
 */
export async function expireDeliveredMessages(pool: Pool, now: Date = new Date()): Promise<{ posts: number; messages: number }> {
  return withTransaction(pool, async (client) => {
    const query = client.query.bind(client) as never as (sql: string, params?: unknown[]) => Promise<{ rows: Array<Record<string, unknown>> }>;
    const { rows: due } = await client.query<{ datatarget_id: string; first: string; last: string; event_id: string }>(
      `SELECT p.datatarget_id, p.first_message_number AS first, p.last_message_number AS last, p.event_id
         FROM datatarget_posts p JOIN datatargets d USING (datatarget_id)
        WHERE d.retention_days IS NOT NULL AND NOT d.is_deleted
          AND p.posted_at < $1::timestamptz - d.retention_days * interval '1 day'
          AND p.last_message_number <= (SELECT min(coalesce((o.state->>'last_delivered_message_number')::bigint, 0)) FROM outlets o
                                         WHERE o.datatarget_id = d.datatarget_id AND NOT o.is_deleted)
          AND EXISTS (SELECT 1 FROM mds_personal_data k WHERE k.event_id = p.event_id AND k.records->0 <> to_jsonb($2::text))
        ORDER BY p.posted_at LIMIT ${POSTS_PER_SWEEP}`,
      [now.toISOString(), EXPIRED_MESSAGE],
    );
    if (due.length === 0) return { posts: 0, messages: 0 };
    await client.query('SELECT mds_personal_erasure_begin()');
    const json = JSON.stringify(due);
    await client.query(
      `UPDATE mds_personal_data k SET salt = NULL, records = (SELECT jsonb_agg(to_jsonb($2::text)) FROM jsonb_array_elements(k.records))
        WHERE k.event_id IN (SELECT x.event_id FROM jsonb_to_recordset($1::jsonb) AS x(event_id uuid))`,
      [json, EXPIRED_MESSAGE],
    );
    for (const schema of await schemasOf(query, 'datatargets', 'datatarget_messages')) {
      await client.query(
        `UPDATE ${qualified(schema, 'datatarget_messages')} m SET message = to_jsonb($2::text)
           FROM jsonb_to_recordset($1::jsonb) AS x(datatarget_id text, first bigint, last bigint)
          WHERE m.datatarget_id = x.datatarget_id AND m.message_number BETWEEN x.first AND x.last`,
        [json, EXPIRED_MESSAGE],
      );
    }
    // The replies to the attempts that sent them (a receiver may have echoed them) go with them.
    for (const [i, schema] of (await schemasOf(query, 'datatargets', 'outlet_log')).entries()) {
      const { rows } = await client.query<{ outlet_id: string; entry_number: string }>(
        `UPDATE ${qualified(schema, 'outlet_log')} l SET http_reply = $2
           FROM ${qualified(schema, 'outlets')} o, jsonb_to_recordset($1::jsonb) AS x(datatarget_id text, first bigint, last bigint)
          WHERE o.outlet_id = l.outlet_id AND o.datatarget_id = x.datatarget_id AND l.request ? 'messages' AND l.http_reply IS DISTINCT FROM $2
            AND (l.request->'messages'->>0)::bigint <= x.last AND (l.request->'messages'->>1)::bigint >= x.first
        RETURNING l.outlet_id, l.entry_number`,
        [json, EXPIRED_MESSAGE],
      );
      if (i > 0 || rows.length === 0) continue;
      await client.query(
        `UPDATE mds_personal_data p SET salt = NULL, records = jsonb_build_array(to_jsonb($2::text))
          WHERE p.event_id IN (SELECT ${ATTEMPT_EVENT_ID_SQL('h.outlet_id', 'h.entry_number::text')} FROM jsonb_to_recordset($1::jsonb) AS h(outlet_id text, entry_number bigint))`,
        [JSON.stringify(rows), EXPIRED_MESSAGE],
      );
    }
    return { posts: due.length, messages: due.reduce((n, p) => n + Number(p.last) - Number(p.first) + 1, 0) };
  });
}
