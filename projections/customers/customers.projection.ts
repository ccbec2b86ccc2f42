import * as path from 'node:path';
import { EVENTS_IMPORTED } from '#mds/activity';
import { CUSTOMERS_IMPORTED } from '#mds/customers';
import { DATA_QUERY_ACCEPTED } from '#mds/imports';
import { dataQueryOf, forEachRun, matchWhere } from '../runtime/data-query-sql';
import type { RecordedEvent } from '#mds/event-store';
import type { Projection } from '../runtime/projection';
import { CUSTOMERS_QUERY_TABLE } from './customers.queries';
import { applyImports, PAGE_TABLE } from './merge/merge-waves';

/**
 * Customers, merged by identity from customer imports, subscription events (MAIL_/SMS_ SUBSCRIBE and
 * UNSUBSCRIBE, as customer patches: libs/activity customerEffect) and bulk updates, in log order.
 * What a record does to its customer is stated once in libs/customers (customer-merge.model.ts);
 * merge/merge-waves.ts applies it a page at a time in sets, with the SQL of merge/merge.sql.ts.
 */
export const customersProjection: Projection = {
  name: 'customers',
  // 5: waves as runs in log order ending at a forgetting (read models built by 4 could differ where records waited).
  // 6: forgotten identifiers remember whose they were (campaign statistics keep a forgotten buyer's sales).
  // 7: customer_changes lists where each customer's changes are in the log (its history).
  // 8: a record naming a forgotten customer's identifier starts a new customer; forgetting erases (erasure.ts).
  // 9: forgetting finds the customer's records without reading the log (customer_chunks, customer_changes.ext).
  // 10: customer_changes by position (datasync makes a message of each change of a page).
  // 11: consent_source is about the change: never kept on the customer (the consent history reads it from the log).
  // 12: a customer's first change is named by its id, not listed in customer_changes (created_ext keeps its external id).
  version: 12,
  eventTypes: [CUSTOMERS_IMPORTED, EVENTS_IMPORTED, DATA_QUERY_ACCEPTED],
  logDataTypes: [CUSTOMERS_IMPORTED],
  batchSize: 20,
  // forgotten_identifiers is read by events and sales retrieval too (their records of forgotten customers are scrubbed).
  tables: ['customers', 'forgotten_identifiers', 'customer_changes', 'customer_chunks'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events, tx) {
    await forEachRun(events, (e) => (e.type === DATA_QUERY_ACCEPTED ? 'query' : 'import'), async (run) => {
      if (run[0].type !== DATA_QUERY_ACCEPTED) {
        // The run's table, empty, and each chunk's event id (forgetting finds its list by it), in one round trip.
        await tx.query(`${PAGE_TABLE}${chunksOf(run)}`);
        return applyImports(run, tx);
      }
      for (const e of run) {
        const query = dataQueryOf(e, 'customers');
        if (!query) continue;
        // A bulk update merges like an import (list operations, "" removes a field); is_deleted is for good.
        const params: unknown[] = [JSON.stringify(query.update), e.createdAt, e.position];
        // consent_source is about the change (the consent history reads it from the log), never the customer's.
        // A bulk update is a change of each customer it reaches (n 0: the whole event).
        await tx.query(
          `WITH u AS (UPDATE customers SET data = customer_merge(data, $1::jsonb - ARRAY['is_deleted', 'consent_source']), is_deleted = is_deleted OR ($1::jsonb ? 'is_deleted'),
                  updated_at = $2, updated_position = $3
            WHERE ${matchWhere(query.match, CUSTOMERS_QUERY_TABLE, params)} RETURNING customer_id)
           INSERT INTO customer_changes (customer_id, position, n) SELECT customer_id, $3, 0 FROM u`,
          params,
        );
      }
    });
  },
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `; INSERT` of the run's customer chunks (position, event id) into customer_chunks, as literals so it shares a query; '' when none. */
function chunksOf(events: RecordedEvent[]): string {
  const rows = events
    .filter((e) => e.type === CUSTOMERS_IMPORTED)
    .map((e) => {
      if (!Number.isSafeInteger(e.position) || !UUID.test(e.id)) throw new Error(`not a chunk's position and id: ${e.position}, ${e.id}`);
      return `(${e.position}, '${e.id}')`;
    });
  return rows.length === 0 ? '' : `; INSERT INTO customer_chunks (position, event_id) VALUES ${rows.join(', ')} ON CONFLICT DO NOTHING`;
}
