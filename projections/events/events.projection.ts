import * as path from 'node:path';
import { EVENTS_IMPORTED } from '#mds/activity';
import type { RecordedEvent } from '#mds/event-store';
import { DATA_QUERY_ACCEPTED } from '#mds/imports';
import { dataQueryOf, forEachRun, matchWhere } from '../runtime/data-query-sql';
import { pageRecords, queryByIndex, type Projection, type ProjectionTx } from '../runtime/projection';
import { EVENTS_QUERY_TABLE } from './events.queries';

/** Set-based: the page's new events in one INSERT, then its deletions in one UPDATE (ids come from retrieval, so a deletion follows its event). */
export const eventsProjection: Projection = {
  name: 'events',
  // 2: an index of shipments by sale_id (a sale shows its ORDER_SHIPPED events).
  version: 2,
  eventTypes: [EVENTS_IMPORTED, DATA_QUERY_ACCEPTED],
  logDataTypes: [EVENTS_IMPORTED],
  batchSize: 20,
  tables: ['customer_events'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events, tx) {
    await forEachRun(events, (e) => e.type, async (run) => {
      if (run[0].type === EVENTS_IMPORTED) return applyImports(run, tx);
      for (const e of run) {
        const query = dataQueryOf(e, 'events');
        if (!query) continue;
        const params: unknown[] = [JSON.stringify(query.update)];
        await tx.query(
          `UPDATE customer_events SET data = jsonb_strip_empty(data || ($1::jsonb - 'is_deleted')), is_deleted = is_deleted OR ($1::jsonb ? 'is_deleted')
            WHERE ${matchWhere(query.match, EVENTS_QUERY_TABLE, params)}`,
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
           rec->>'customer_token', rec - '$phone', position, at
      FROM events_batch WHERE rec->>'is_deleted' IS NULL
    ON CONFLICT (id) DO NOTHING`);
  await queryByIndex(tx, `UPDATE customer_events e SET is_deleted = true
    FROM events_batch b WHERE (b.rec->>'is_deleted')::boolean AND e.id = (b.rec->>'id')::bigint`);
  await tx.query('DROP TABLE events_batch');
}
