import * as path from 'node:path';
import {
  DATATARGET_CHANGED,
  DATATARGET_CREATED,
  DATATARGET_DELETED,
  DELIVERY_ATTEMPTED,
  INITIAL_OUTLET_STATE,
  MESSAGES_POSTED,
  OUTLET_CHANGED,
  OUTLET_CONTROLLED,
  OUTLET_CREATED,
  OUTLET_DELETED,
  templateKey,
  type DatatargetChanged,
  type DatatargetCreated,
  type OutletChanged,
  type OutletControlled,
  type OutletCreated,
} from '#mds/datatargets';
import type { RecordedEvent } from '#mds/event-store';
import { forEachRun } from '../runtime/data-query-sql';
import { pageEvents, type Projection, type ProjectionTx } from '../runtime/projection';

/**
 * Notification channel of outlet workers: the payload is a datatarget id whose messages or outlets
 * changed (sent at commit), so idle outlets wake when there is something to do instead of polling.
 * A worker's own delivery attempts do not notify.
 */
export const OUTLETS_CHANNEL = 'mds_outlets';

/**
 * Datatargets and outlets as their streams define them. Posted messages go in with one statement per
 * run of posts; everything else is one small statement per event (low volume).
 */
export const datatargetsProjection: Projection = {
  name: 'datatargets',
  // 2: attempts by reference (outlet_log.request, outlet_templates).
  // 3: retention_days, and datatarget_posts (where each post's messages are kept, and when posted).
  version: 3,
  eventTypes: [DATATARGET_CREATED, DATATARGET_CHANGED, DATATARGET_DELETED, MESSAGES_POSTED, OUTLET_CREATED, OUTLET_CHANGED, OUTLET_DELETED, DELIVERY_ATTEMPTED, OUTLET_CONTROLLED],
  streamPrefixes: ['datatarget-', 'outlet-'],
  // Posted messages and attempts are read from the log by the statements that take them (or reach
  // them as stored text); the rest is parsed.
  logDataTypes: [MESSAGES_POSTED, DELIVERY_ATTEMPTED],
  tables: ['datatargets', 'datatarget_messages', 'datatarget_posts', 'outlets', 'outlet_log', 'outlet_templates'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events, tx) {
    await forEachRun(events, (e) => (e.type === MESSAGES_POSTED || e.type === DELIVERY_ATTEMPTED ? e.type : e.id), async (run) => {
      if (run[0].type === MESSAGES_POSTED) await insertMessages(run, tx);
      else if (run[0].type === DELIVERY_ATTEMPTED) await insertAttempts(run, tx);
      else await applyOne(run[0], tx);
    });
  },
};

async function insertMessages(events: RecordedEvent[], tx: ProjectionTx): Promise<void> {
  const posts = pageEvents(events, '$1');
  // One statement, so the posts (up to 10,000 messages each) are parsed once and never cross Node.
  // A post's fields are taken in one go (jsonb_to_record): data read from the log may still be
  // compressed, and each field read on its own (worse, per message) decompresses the whole post.
  await tx.query(
    `WITH p AS (SELECT substr(e.stream, ${'datatarget-'.length + 1}) AS id, e.id AS event_id, e.at, d.first_message_number AS first, d.last_message_number AS last, d.messages
                  FROM ${posts.from} CROSS JOIN LATERAL jsonb_to_record(e.data) AS d(first_message_number bigint, last_message_number bigint, messages jsonb)),
     inserted AS (INSERT INTO datatarget_messages (datatarget_id, message_number, message)
                  SELECT p.id, p.first + m.n - 1, m.message
                    FROM p CROSS JOIN LATERAL jsonb_array_elements(p.messages) WITH ORDINALITY AS m(message, n)
                  ON CONFLICT DO NOTHING),
     posted AS (INSERT INTO datatarget_posts (datatarget_id, first_message_number, last_message_number, event_id, posted_at)
                SELECT p.id, p.first, p.last, p.event_id, p.at FROM p ON CONFLICT DO NOTHING)
     UPDATE datatargets d SET last_message_number = x.last
       FROM (SELECT id, max(last) AS last FROM p GROUP BY id) x
      WHERE d.datatarget_id = x.id
     RETURNING pg_notify('${OUTLETS_CHANNEL}', d.datatarget_id)`,
    [posts.json],
  );
}

/** A run of delivery attempts (a worker appends them in groups): the log entries, then each outlet's latest state. */
async function insertAttempts(events: RecordedEvent[], tx: ProjectionTx): Promise<void> {
  const attempts = pageEvents(events, '$1');
  await tx.query(
    // The reply: kept beside the log (`replies`, merged back where it is read), or in the event (schema 1).
    `WITH a AS (SELECT substr(e.stream, ${'outlet-'.length + 1}) AS outlet_id, e.ord, d.entry, d.request, d.http_request, coalesce(d.http_reply, d.replies->>0) AS http_reply, d.state
                  FROM ${attempts.from} CROSS JOIN LATERAL jsonb_to_record(e.data) AS d(entry jsonb, request jsonb, http_request text, http_reply text, replies jsonb, state jsonb)),
     logged AS (INSERT INTO outlet_log (outlet_id, entry_number, entry, request, http_request, http_reply)
                SELECT outlet_id, (entry->>'entry_number')::bigint, entry, request, http_request, http_reply FROM a ORDER BY ord ON CONFLICT DO NOTHING)
     UPDATE outlets o SET state = l.state
       FROM (SELECT DISTINCT ON (outlet_id) outlet_id, state FROM a ORDER BY outlet_id, ord DESC) l
      WHERE o.outlet_id = l.outlet_id`,
    [attempts.json],
  );
}

async function applyOne(e: RecordedEvent, tx: ProjectionTx): Promise<void> {
  const id = e.stream.slice(e.stream.indexOf('-') + 1);
  switch (e.type) {
    case DATATARGET_CREATED: {
      const d = e.data as DatatargetCreated;
      await tx.query(
        `INSERT INTO datatargets (datatarget_id, datatarget_type, datatype, name, description, created_at, retention_days) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
        [d.datatarget_id, d.datatarget_type, d.datatype, d.name, d.description, d.created_at, d.retention_days ?? null],
      );
      return;
    }
    case DATATARGET_CHANGED: {
      const c = (e.data as DatatargetChanged).changes;
      await tx.query(
        `UPDATE datatargets SET name = coalesce($2, name), description = coalesce($3, description), enabled = coalesce($4, enabled),
                retention_days = CASE WHEN $5 THEN $6 ELSE retention_days END WHERE datatarget_id = $1
         RETURNING pg_notify('${OUTLETS_CHANNEL}', datatarget_id)`,
        [id, c.name ?? null, c.description ?? null, c.enabled ?? null, 'retention_days' in c, c.retention_days ?? null],
      );
      return;
    }
    case DATATARGET_DELETED:
      await tx.query('UPDATE datatargets SET is_deleted = true WHERE datatarget_id = $1', [id]);
      await tx.query(`UPDATE outlets SET is_deleted = true WHERE datatarget_id = $1 RETURNING pg_notify('${OUTLETS_CHANNEL}', datatarget_id)`, [id]);
      return;
    case OUTLET_CREATED: {
      const { outlet: o, state } = e.data as OutletCreated;
      // Announced, so an outlet worker takes the new outlet at once rather than at its next poll.
      // `state`: an outlet starting "now" (its stream's `start` control came first, before this row existed).
      await tx.query(`INSERT INTO outlets (outlet_id, datatarget_id, definition, state, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING pg_notify('${OUTLETS_CHANNEL}', datatarget_id)`, [
        o.outlet_id, o.datatarget_id, JSON.stringify(o), JSON.stringify(state ?? INITIAL_OUTLET_STATE), o.created_at,
      ]);
      await keepTemplate(tx, o.outlet_id, o.request.content);
      return;
    }
    case OUTLET_CHANGED: {
      const c = e.data as OutletChanged;
      await tx.query(`UPDATE outlets SET definition = definition || $2::jsonb WHERE outlet_id = $1 RETURNING pg_notify('${OUTLETS_CHANNEL}', datatarget_id)`, [c.outlet_id, JSON.stringify(c.changes)]);
      if (c.changes.request) await keepTemplate(tx, c.outlet_id, c.changes.request.content);
      return;
    }
    case OUTLET_DELETED:
      await tx.query(`UPDATE outlets SET is_deleted = true WHERE outlet_id = $1 RETURNING pg_notify('${OUTLETS_CHANNEL}', datatarget_id)`, [(e.data as { outlet_id: string }).outlet_id]);
      return;
    case OUTLET_CONTROLLED:
      await tx.query(`UPDATE outlets SET state = $2 WHERE outlet_id = $1 RETURNING pg_notify('${OUTLETS_CHANNEL}', datatarget_id)`, [id, JSON.stringify((e.data as OutletControlled).state)]);
      return;
  }
}

/** A content template an outlet's attempts may name (by key), kept for rebuilding their requests. */
async function keepTemplate(tx: ProjectionTx, outletId: string, content: unknown): Promise<void> {
  await tx.query(`INSERT INTO outlet_templates (outlet_id, template, content) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [outletId, templateKey(content), JSON.stringify(content ?? null)]);
}
