import * as path from 'node:path';
import { EVENTS_IMPORTED } from '#mds/activity';
import { PRODUCTS_IMPORTED } from '#mds/catalog';
import { CUSTOMERS_IMPORTED } from '#mds/customers';
import { DATATARGET_CREATED, DATATARGET_DELETED, type DatatargetCreated } from '#mds/datatargets';
import { SALES_IMPORTED } from '#mds/sales';
import { OUTLETS_CHANNEL } from '../datatargets/datatargets.projection';
import { EventDataNeeded, type Projection } from '../runtime/projection';

const DATATYPE_OF: Record<string, string> = { [CUSTOMERS_IMPORTED]: 'customers', [PRODUCTS_IMPORTED]: 'products', [EVENTS_IMPORTED]: 'events', [SALES_IMPORTED]: 'sales' };

/**
 * Turns every imported record of a datasync datatarget's datatype into a message `{datatype, change}`
 * ("$" matching aids left out), numbered per datatarget in log order. Until a datasync datatarget
 * exists, import chunks are read without their records and a page costs one query.
 */
export const datasyncProjection: Projection = {
  name: 'datasync',
  version: 1,
  eventTypes: [DATATARGET_CREATED, DATATARGET_DELETED, ...Object.keys(DATATYPE_OF)],
  // Import chunks are read whole only once a datasync datatarget exists (see EventDataNeeded).
  dataTypes: [DATATARGET_CREATED, DATATARGET_DELETED],
  batchSize: 20,
  tables: ['datasync_targets', 'datasync_messages'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events, tx) {
    for (const e of events) {
      if (e.type === DATATARGET_CREATED) {
        const d = e.data as DatatargetCreated;
        if (d.datatarget_type === 'datasync') await tx.query('INSERT INTO datasync_targets (datatarget_id, datatype) VALUES ($1, $2) ON CONFLICT DO NOTHING', [d.datatarget_id, d.datatype]);
        continue;
      }
      if (e.type === DATATARGET_DELETED) {
        await tx.query('UPDATE datasync_targets SET is_deleted = true WHERE datatarget_id = $1', [e.stream.slice('datatarget-'.length)]);
        continue;
      }
      const datatype = DATATYPE_OF[e.type];
      const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM datasync_targets WHERE datatype = $1 AND NOT is_deleted', [datatype]);
      if (rows[0].n === 0) continue;
      if (e.data === null) throw new EventDataNeeded(e.type);
      await tx.query(
        `WITH ins AS (
           INSERT INTO datasync_messages (datatarget_id, message_number, message, after_update)
           SELECT t.datatarget_id, t.last_message_number + r.n,
                  jsonb_build_object('datatype', $1::text, 'change', (SELECT coalesce(jsonb_object_agg(k, v), '{}') FROM jsonb_each(r.rec) AS kv(k, v) WHERE k NOT LIKE '$%')),
                  $3::text
             FROM datasync_targets t
            CROSS JOIN LATERAL jsonb_array_elements($2::jsonb) WITH ORDINALITY AS r(rec, n)
            WHERE t.datatype = $1 AND NOT t.is_deleted
           RETURNING datatarget_id, message_number)
         UPDATE datasync_targets t SET last_message_number = x.last
           FROM (SELECT datatarget_id, max(message_number) AS last FROM ins GROUP BY 1) x WHERE t.datatarget_id = x.datatarget_id
         RETURNING pg_notify('${OUTLETS_CHANNEL}', t.datatarget_id)`,
        [datatype, JSON.stringify((e.data as { records: unknown[] }).records), String(e.position)],
      );
    }
  },
};
