import * as path from 'node:path';
import { EVENTS_IMPORTED } from '#mds/activity';
import type { RecordedEvent } from '#mds/event-store';
import { DATA_QUERY_ACCEPTED } from '#mds/imports';
import { DATASYNC_TARGET_EVENTS, inDatasyncWindow, noteDatasyncTargets } from '../datasync/windows';
import { dataQueryOf, forEachRun, matchWhere } from '../runtime/data-query-sql';
import { pageRecords, queryByIndex, type Projection, type ProjectionTx } from '../runtime/projection';
import { EVENTS_QUERY_TABLE } from './events.queries';

/**
 * Set-based: the page's new events in one INSERT, then its deletions in one UPDATE (ids come from
 * retrieval, so a deletion follows its event). Inside a datasync datatarget's window, a bulk update
 * keeps the events it reached (an import's records are the changes datasync reads themselves).
 */
export const eventsProjection: Projection = {
  name: 'events',
  // 2: an index of shipments by sale_id (a sale shows its ORDER_SHIPPED events).
  // 3: inside a datasync datatarget's window, event_bulk_updates keeps the events a bulk update reached.
  // 4: updated_at, the time of the last bulk update that reached an event (null: never updated).
  version: 4,
  eventTypes: [EVENTS_IMPORTED, DATA_QUERY_ACCEPTED, ...DATASYNC_TARGET_EVENTS],
  logDataTypes: [EVENTS_IMPORTED],
  batchSize: 20,
  tables: ['customer_events', 'event_bulk_updates', 'event_datasync_windows'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events, tx) {
    await forEachRun(events, (e) => e.type, async (run) => {
      if (DATASYNC_TARGET_EVENTS.includes(run[0].type)) return noteDatasyncTargets(run, 'events', tx);
      if (run[0].type === EVENTS_IMPORTED) return applyImports(run, tx);
      for (const e of run) {
        const query = dataQueryOf(e, 'events');
        if (!query) continue;
        const params: unknown[] = [JSON.stringify(query.update), e.position, e.createdAt];
        // Each event reached is a change: inside a datasync window, kept with the event after it.
        await tx.query(
          `WITH u AS (UPDATE customer_events SET data = jsonb_strip_empty(data || ($1::jsonb - 'is_deleted')), is_deleted = is_deleted OR ($1::jsonb ? 'is_deleted'), updated_at = $3::timestamptz
                       WHERE ${matchWhere(query.match, EVENTS_QUERY_TABLE, params)} RETURNING id, data, is_deleted)
           INSERT INTO event_bulk_updates (position, id, state)
           SELECT $2, id, CASE WHEN is_deleted THEN jsonb_build_object('id', id, 'is_deleted', true) ELSE data END FROM u WHERE ${inDatasyncWindow('events', '$2::bigint')}`,
          params,
        );
      }
    });
  },
};

async function applyImports(events: RecordedEvent[], tx: ProjectionTx): Promise<void> {
  const page = pageRecords(events, '$1');
  await tx.query(
    `CREATE TEMP TABLE events_batch ON COMMIT DROP AS
     SELECT c.position, c.at, r.rec
       FROM ${page.from}`,
    [page.json],
  );
  await tx.query(`INSERT INTO customer_events (id, type, date, customer_external_id, phone, email, customer_token, data, position, created_at)
    SELECT (rec->>'id')::bigint, rec->>'type', (rec->>'date')::timestamptz, rec->>'customer_id', rec->>'$phone', rec->>'email',
           rec->>'customer_token', rec - ARRAY['$phone', '$customer_id'], position, at
      FROM events_batch WHERE rec->>'is_deleted' IS NULL
    ON CONFLICT (id) DO NOTHING`);
  await queryByIndex(tx, `UPDATE customer_events e SET is_deleted = true
    FROM events_batch b WHERE (b.rec->>'is_deleted')::boolean AND e.id = (b.rec->>'id')::bigint`);
  await tx.query('DROP TABLE events_batch');
}
