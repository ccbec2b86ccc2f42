import * as path from 'node:path';
import { EVENTS_IMPORTED } from '#mds/activity';
import { PRODUCTS_IMPORTED } from '#mds/catalog';
import { CUSTOMERS_IMPORTED, type customerMergeModel as model } from '#mds/customers';
import { DATATARGET_CREATED, DATATARGET_DELETED, type DatatargetCreated } from '#mds/datatargets';
import type { RecordedEvent } from '#mds/event-store';
import { DATA_QUERY_ACCEPTED, type DataQuery } from '#mds/imports';
import { SALES_IMPORTED } from '#mds/sales';
import { applyChange, changeOf, changesOf, CREATION, recordStep } from '../customers/customer-history';
import { customerMessage } from './customer-message';
import { OUTLETS_CHANNEL } from '../datatargets/datatargets.projection';
import { linkedEventSql } from '../events/events.queries';
import { waitForUpstream } from '../runtime/consistency';
import { dataQueryOf } from '../runtime/data-query-sql';
import { pageRecords, type Projection, type ProjectionTx } from '../runtime/projection';
import { linkedRowsSql } from '../sales/sales.queries';

type Datatype = DataQuery['datatype'];

/**
 * The read models each datatype's messages are made from, each at least at the version that keeps
 * what is read here: customers 12 (customer_changes by position, creations named by ids), products 5, events 3 and sales 4
 * (the record after each change inside a datasync window); events and sales rows are shown with the
 * products they were linked to.
 */
const UPSTREAM: Record<Datatype, Record<string, number>> = {
  customers: { customers: 12 },
  products: { products: 5 },
  events: { events: 3, products: 5 },
  sales: { sales: 4, products: 5 },
};

/** The log events that may change records of each datatype (a bulk update only when it is of that datatype). */
const CHANGED_BY: Record<Datatype, string[]> = {
  // Subscription events change customers too.
  customers: [CUSTOMERS_IMPORTED, EVENTS_IMPORTED],
  // Events and sale rows naming an unknown product create it.
  products: [PRODUCTS_IMPORTED, EVENTS_IMPORTED, SALES_IMPORTED],
  events: [EVENTS_IMPORTED],
  sales: [SALES_IMPORTED],
};

/** The events of a page that change records of a datatype. */
function changing(events: RecordedEvent[], datatype: Datatype): RecordedEvent[] {
  return events.filter((e) => CHANGED_BY[datatype].includes(e.type) || dataQueryOf(e, datatype) !== undefined);
}

/** One message to be: a change of a record, `change` the record after it; ordered by (position, n, k, kt). */
interface Change {
  position: number;
  n: number;
  k: number | null;
  kt: string | null;
  change: Record<string, unknown>;
}

/**
 * The changes of products, events and sales in a page, as SQL giving `(position, n, k, kt, change)`:
 * their read models keep each change with the record after it inside a datasync window (an imported
 * event is its record); `$1` is the page's positions, `$2` its event import chunks (pageRecords).
 */
const KEPT_CHANGES_SQL: Record<Exclude<Datatype, 'customers'>, (chunks: string) => string> = {
  products: () => `SELECT position, n, NULL::bigint, external_id || '/' || language, state FROM product_changes WHERE position = ANY ($1::bigint[])`,
  events: (chunks) => `SELECT position, n, id, NULL::text, CASE WHEN state ? 'is_deleted' THEN state ELSE ${linkedEventSql('state')} END FROM (
      SELECT c.position, r.n::int AS n, (r.rec->>'id')::bigint AS id, CASE WHEN (r.rec->>'is_deleted')::boolean THEN r.rec ELSE r.rec - ARRAY['$phone', '$customer_id'] END AS state FROM ${chunks}
      UNION ALL SELECT position, 0, id, state FROM event_bulk_updates WHERE position = ANY ($1::bigint[])) x`,
  sales: () => `SELECT position, n, NULL::bigint, sale_external_id, CASE WHEN state ? 'is_deleted' THEN state ELSE jsonb_set(state - '$phone', '{products}', ${linkedRowsSql("state->'products'")}) END
      FROM sale_changes WHERE position = ANY ($1::bigint[])`,
};

/**
 * Datasync datatargets: every change of a record of their datatype, from their creation on, becomes a
 * message `{datatype, change}` with the record as it is right after that change, numbered per
 * datatarget in log order: imports, subscription events (customers), products created for an
 * event's or a sale row's reference, each record a bulk update reached, deletions (the record's keys
 * and `is_deleted: true`) and forgettings (`{external_id, is_forgotten: true}`). Which records a change
 * reached, and the record after it, are functions of the log, so a rebuild makes the same messages:
 * products, events and sales keep each change with the record after it while a datasync window is
 * open (datasync/windows.ts); customers are folded here by the merge model (libs/customers), from
 * this read model's copy of each customer it has seen (datasync_customers), or from the customer's
 * changes read back from the log the first time. Until a datasync datatarget exists a page costs one query.
 */
export const datasyncProjection: Projection = {
  name: 'datasync',
  // 2: messages carry the record after the change; bulk updates, deletions, subscriptions and created
  // products are changes too (datasync_targets: created/deleted positions; datasync_customers).
  // 3: a customer's consent_source is about the change, not in the customer (the merge model's rule 4).
  version: 3,
  eventTypes: [DATATARGET_CREATED, DATATARGET_DELETED, CUSTOMERS_IMPORTED, PRODUCTS_IMPORTED, EVENTS_IMPORTED, SALES_IMPORTED, DATA_QUERY_ACCEPTED],
  // Customer and event chunks are read in SQL where they lie, only once a datasync datatarget needs them.
  dataTypes: [DATATARGET_CREATED, DATATARGET_DELETED, DATA_QUERY_ACCEPTED],
  logDataTypes: [CUSTOMERS_IMPORTED, EVENTS_IMPORTED],
  batchSize: 20,
  reads: Object.assign({}, ...Object.values(UPSTREAM)),
  tables: ['datasync_targets', 'datasync_messages', 'datasync_customers'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events, tx) {
    for (const e of events) {
      if (e.type === DATATARGET_CREATED) {
        const d = e.data as DatatargetCreated;
        if (d.datatarget_type === 'datasync') {
          await tx.query('INSERT INTO datasync_targets (datatarget_id, datatype, created_position) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [d.datatarget_id, d.datatype, e.position]);
        }
      } else if (e.type === DATATARGET_DELETED) {
        await tx.query('UPDATE datasync_targets SET is_deleted = true, deleted_position = $2 WHERE datatarget_id = $1 AND NOT is_deleted', [e.stream.slice('datatarget-'.length), e.position]);
      }
    }
    // Datatypes with a datatarget receiving changes in this page (one deleted in it still gets those before).
    const { rows } = await tx.query<{ datatype: Datatype }>('SELECT DISTINCT datatype FROM datasync_targets WHERE NOT is_deleted OR deleted_position > $1', [events[0].position]);
    const datatypes = rows.map((r) => r.datatype).filter((d) => UPSTREAM[d] !== undefined && changing(events, d).length > 0);
    if (datatypes.length > 0) await makeMessages(events, datatypes, tx);
  },
};

async function makeMessages(events: RecordedEvent[], datatypes: Datatype[], tx: ProjectionTx): Promise<void> {
  // The read models have applied every change of the page before they are read.
  await waitForUpstream(tx, Object.assign({}, ...datatypes.map((d) => UPSTREAM[d])), Math.max(...datatypes.flatMap((d) => changing(events, d).map((e) => e.position))));
  // Held shared until commit (the personal-data lock, through the check that takes it): a forgetting
  // has either committed before anything is read (it is read forgotten) or waits for this page and
  // then redacts its messages like the others.
  await tx.query('SELECT mds_personal_epoch_unchanged(0)');
  for (const datatype of datatypes) {
    const page = changing(events, datatype);
    if (datatype === 'customers') {
      const changes = await customerChanges(page, tx);
      await insertMessages(tx, datatype, 'SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(position bigint, n int, k bigint, kt text, change jsonb)', [JSON.stringify(changes)]);
    } else {
      const chunks = pageRecords(page.filter((e) => e.type === EVENTS_IMPORTED), '$2');
      await insertMessages(tx, datatype, KEPT_CHANGES_SQL[datatype](chunks.from), datatype === 'events' ? [page.map((e) => e.position), chunks.json] : [page.map((e) => e.position)]);
    }
  }
}

/**
 * The changes `source` gives (`position, n, k, kt, change`) as messages of the datatype's datatargets
 * whose window holds them, numbered on from each one's last in (position, n, k, kt) order. The
 * datatype is one of UPSTREAM's keys (a literal of this file).
 */
async function insertMessages(tx: ProjectionTx, datatype: Datatype, source: string, params: unknown[]): Promise<void> {
  await tx.query(
    `WITH ins AS (
       INSERT INTO datasync_messages (datatarget_id, message_number, message, after_update)
       SELECT t.datatarget_id, t.last_message_number + row_number() OVER (PARTITION BY t.datatarget_id ORDER BY c.position, c.n, c.k, c.kt),
              jsonb_build_object('datatype', t.datatype, 'change', c.change), c.position::text
         FROM datasync_targets t JOIN (${source}) AS c(position, n, k, kt, change)
           ON t.datatype = '${datatype}' AND c.position > t.created_position AND (t.deleted_position IS NULL OR c.position < t.deleted_position)
       RETURNING datatarget_id, message_number)
     UPDATE datasync_targets t SET last_message_number = x.last
       FROM (SELECT datatarget_id, max(message_number) AS last FROM ins GROUP BY 1) x WHERE t.datatarget_id = x.datatarget_id
     RETURNING pg_notify('${OUTLETS_CHANNEL}', t.datatarget_id)`,
    params,
  );
}

/**
 * Every change of a customer in these events (customer_changes: imports, subscriptions, bulk
 * updates, deletions, forgettings), with the customer after it: folded by the merge model from this
 * read model's copy of the customer when it is the customer as of its last change before the page,
 * else from all the customer's earlier changes read back from the log (a customer it has not seen
 * since, or ever). The copies are kept for the next page.
 */
async function customerChanges(page: RecordedEvent[], tx: ProjectionTx): Promise<Change[]> {
  // The customers made in the page (their ids name their first changes: CREATION) and the changes listed.
  const { rows } = await tx.query<{ customer_id: string; position: string; n: number }>(
    `SELECT customer_id, position, n FROM (
       SELECT customer_id, position, n FROM customer_changes WHERE position = ANY ($1::bigint[])
       UNION ALL
       SELECT c.customer_id, p.position, ${CREATION('c.customer_id').n} FROM unnest($1::bigint[]) AS p(position)
         JOIN customers c ON ${CREATION('c.customer_id').madeIn('p.position')}) x
     ORDER BY position, n, customer_id`,
    [page.map((e) => e.position)],
  );
  if (rows.length === 0) return [];
  const changes = rows.map((r) => ({ customerId: Number(r.customer_id), position: Number(r.position), n: r.n }));
  const ids = [...new Set(changes.map((c) => c.customerId))];
  const start = page[0].position;
  // Each customer's last change before the page, and the copy kept of it.
  const creation = CREATION('i.id');
  const { rows: kept } = await tx.query<{ customer_id: string; prior: string | null; prior_n: number | null; position: string | null; n: number | null; state: model.Customer | null }>(
    `SELECT i.id AS customer_id, p.position AS prior, p.n AS prior_n, d.position, d.n, d.state
       FROM unnest($1::bigint[]) AS i(id)
       LEFT JOIN LATERAL (SELECT position, n FROM (
           (SELECT position, n FROM customer_changes WHERE customer_id = i.id AND position < $2 ORDER BY position DESC, n DESC LIMIT 1)
           UNION ALL SELECT ${creation.position}, ${creation.n} WHERE ${creation.position} < $2) x ORDER BY position DESC, n DESC LIMIT 1) p ON true
       LEFT JOIN datasync_customers d ON d.customer_id = i.id`,
    [ids, start],
  );
  const customers = new Map<number, model.Customer | undefined>();
  const unseen: number[] = [];
  for (const r of kept) {
    const id = Number(r.customer_id);
    if (r.prior === null) customers.set(id, undefined);
    else if (r.state !== null && r.position === r.prior && r.n === r.prior_n) customers.set(id, r.state);
    else unseen.push(id);
  }
  const { rows: history } = unseen.length === 0 ? { rows: [] } : await tx.query<{ customer_id: string; position: string; n: number }>(
    `SELECT customer_id, position, n FROM (${changesOf('SELECT unnest($1::bigint[])')}) x WHERE position < $2 ORDER BY customer_id, position, n`,
    [unseen, start],
  );
  const earlier = history.map((r) => ({ customerId: Number(r.customer_id), position: Number(r.position), n: r.n }));
  // The page's records that changed a customer, read in SQL where they lie; earlier ones from the log.
  const inPage = new Map(page.map((e) => [e.position, e]));
  const wanted: Record<number, number[]> = {};
  for (const c of changes) (wanted[c.position] ??= []).push(c.n);
  const chunks = pageRecords(page.filter((e) => e.type !== DATA_QUERY_ACCEPTED && wanted[e.position]), '$1');
  // Which records of each chunk: a look-up per record (a join with a list of pairs can be planned as a scan of it per record).
  const { rows: records } = await tx.query<{ position: string; n: string; rec: unknown }>(
    `SELECT c.position, r.n, r.rec FROM ${chunks.from} WHERE ($2::jsonb -> c.position::text) @> to_jsonb(r.n)`,
    [chunks.json, JSON.stringify(wanted)],
  );
  const recordAt = new Map(records.map((r) => [`${r.position}/${r.n}`, r.rec]));
  if (earlier.length > 0 && !tx.readAt) throw new Error('datasync needs to read customer changes from the log (ProjectionTx.readAt)');
  const read = earlier.length > 0 ? await tx.readAt!(earlier.map((c) => c.position)) : new Map<number, RecordedEvent>();
  const fold = (c: { customerId: number; position: number; n: number }) => {
    const event = inPage.get(c.position) ?? read.get(c.position);
    if (!event) throw new Error(`customer_changes names position ${c.position}, which the log does not have`);
    const step = event.type === DATA_QUERY_ACCEPTED || read.has(c.position) ? changeOf(event, c.n) : recordStep(event.type, recordAt.get(`${c.position}/${c.n}`));
    const before = customers.get(c.customerId);
    const after = step ? applyChange(before, step, c.customerId, event) : before;
    customers.set(c.customerId, after);
    return { before, after };
  };
  for (const c of earlier) fold(c);
  const out: Change[] = [];
  const last = new Map<number, { position: number; n: number }>();
  for (const c of changes) {
    const { before, after } = fold(c);
    if (after) out.push({ position: c.position, n: c.n, k: c.customerId, kt: null, change: customerMessage(after, before) });
    last.set(c.customerId, { position: c.position, n: c.n });
  }
  const copies = [...last].flatMap(([id, at]) => (customers.get(id) ? [{ customer_id: id, position: at.position, n: at.n, state: customers.get(id) }] : []));
  await tx.query(
    `INSERT INTO datasync_customers AS d SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(customer_id bigint, position bigint, n int, state jsonb)
     ON CONFLICT (customer_id) DO UPDATE SET position = excluded.position, n = excluded.n, state = excluded.state`,
    [JSON.stringify(copies)],
  );
  return out;
}
