import * as path from 'node:path';
import { customerEffect, EVENTS_IMPORTED, isDeletion, type EventDeletion, type EventRecord } from '#mds/activity';
import { CUSTOMERS_IMPORTED } from '#mds/customers';
import type { RecordedEvent } from '#mds/event-store';
import { DATA_QUERY_ACCEPTED } from '#mds/imports';
import { dataQueryOf, forEachRun, matchWhere } from '../runtime/data-query-sql';
import { dataOf, pageRecords, queryByIndex, type Projection, type ProjectionTx } from '../runtime/projection';
import { CUSTOMERS_QUERY_TABLE } from './customers.queries';

/**
 * Set-based merge of imported customers. A page of chunks goes into a temporary table; then, in
 * waves, every record is matched against the customers (external_id, then phone, then e-mail, see
 * README) and each wave applies — with a handful of statements — the records that are first among
 * the remaining ones for every identifier and target they touch. Records of one identity are so
 * applied in log order; a page usually needs one wave, a request with repeated identities one per repeat
 * (repeats of one customer that nothing else in the page touches are first made one record).
 * Subscription events (MAIL_/SMS_ SUBSCRIBE/UNSUBSCRIBE) enter the same merge as customer patches
 * (libs/activity customerEffect), so their effects apply in log order with the imports around them.
 */
export const customersProjection: Projection = {
  name: 'customers',
  // 5: waves as runs in log order ending at a forgetting (read models built by 4 could differ where records waited).
  version: 5,
  eventTypes: [CUSTOMERS_IMPORTED, EVENTS_IMPORTED, DATA_QUERY_ACCEPTED],
  logDataTypes: [CUSTOMERS_IMPORTED],
  batchSize: 20,
  // forgotten_identifiers is read by events and sales retrieval too (their records of forgotten customers are scrubbed).
  tables: ['customers', 'forgotten_identifiers'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events, tx) {
    await forEachRun(events, (e) => (e.type === DATA_QUERY_ACCEPTED ? 'query' : 'import'), async (run) => {
      if (run[0].type !== DATA_QUERY_ACCEPTED) return applyImports(run, tx);
      for (const e of run) {
        const query = dataQueryOf(e, 'customers');
        if (!query) continue;
        // A bulk update merges like an import (list operations, "" removes a field); is_deleted is for good.
        const params: unknown[] = [JSON.stringify(query.update), e.createdAt, e.position];
        await tx.query(
          `UPDATE customers SET data = customer_merge(data, $1::jsonb - 'is_deleted'), is_deleted = is_deleted OR ($1::jsonb ? 'is_deleted'),
                  updated_at = $2, updated_position = $3
            WHERE ${matchWhere(query.match, CUSTOMERS_QUERY_TABLE, params)}`,
          params,
        );
      }
    });
  },
};

async function applyImports(events: RecordedEvent[], tx: ProjectionTx): Promise<void> {
  // Customer chunks go to SQL as stored (unparsed when read as text); subscription events become
  // customer patches, and events without an effect stay as null, so every record keeps its index.
  const patches = (e: RecordedEvent) =>
    e.type === EVENTS_IMPORTED
      ? dataOf<{ records: Array<EventRecord | EventDeletion> }>(e).records.map((r) => (isDeletion(r) ? null : (customerEffect(r) ?? null)))
      : undefined;
  // The first wave's targets are resolved as the page is loaded: one pass instead of a load and an update.
  const page = pageRecords(events, '$1', patches);
  await tx.query(
    `CREATE TEMP TABLE cb ON COMMIT DROP AS
     SELECT x.*, ${TARGET('x')} AS target FROM (
       SELECT c.position * 10000 + r.n AS ord, c.position, c.at, r.rec,
              nullif(r.rec->>'external_id', '') AS ext, ${PHONE_OF('r.rec')} AS phone, ${EMAIL_OF('r.rec')} AS email,
              coalesce(r.rec->>'$token', nullif(r.rec->>'cb_token', '')) AS token, ${NEEDS_MERGE('r.rec')} AS merge,
              NULL::boolean AS phone_free, NULL::boolean AS email_free, c.at AS first_at
         FROM ${page.from}
        WHERE jsonb_typeof(r.rec) = 'object') x`,
    [page.json],
  );
  let relaxed = false;
  for (let wave = 0; ; wave++) {
    if (wave > 100_000) throw new Error('customer merge does not converge');
    // Records naming an identifier of a forgotten customer are ignored: the data stays forgotten.
    // Checked every wave, since a forgetting earlier in this page counts for the records after it.
    await tx.query(NAMING_FORGOTTEN('cb'));
    // Targets change as earlier waves create and take customers; so does which repeats order the records (FREE).
    if (wave > 0) await tx.query(`UPDATE cb SET target = ${TARGET('cb')}${relaxed ? `, ${SET_FREE}` : ''}`);
    // When no identifier or target repeats among the remaining records (the usual page), they all go in one
    // wave: cb itself. Otherwise see the wave below.
    let shape = await waveShape(tx, relaxed);
    if (shape.remaining === 0) break;
    if (wave === 0 && shape.repeats && shape.forgetting === 0 && customersMerge.wavesBeforeInOrder > 0) {
      await applyOwnRepeats(tx);
      shape = await waveShape(tx, relaxed);
    }
    if (!shape.distinct && !relaxed) {
      // Identifiers repeat: find out which repeats order the records (see FREE) and look again.
      await tx.query(`UPDATE cb SET ${SET_FREE}`);
      relaxed = true;
      shape = await waveShape(tx, relaxed);
    }
    if (shape.distinct && shape.forgetting === 0) {
      await applyWave(tx, 'cb', shape);
      break;
    }
    if (wave >= customersMerge.wavesBeforeInOrder) {
      await applyInOrder(tx);
      break;
    }
    // The wave: the longest run of records, in log order, each first among the remaining ones for every
    // identifier and target it has (a record that waits holds back every record after it: one of them
    // could change the customer the waiting record will find), ending at a forgetting (it forgets its
    // customer's identifiers too, which records after it may name, whatever identifiers they share).
    await applyTaken(tx, `SELECT * FROM (
        SELECT x.*, min(ord) FILTER (WHERE NOT first) OVER () AS cut, min(ord) FILTER (WHERE rec ? 'is_forgotten') OVER () AS forgetting
          FROM (SELECT cb.*,
                       (ext IS NULL OR min(ord) OVER (PARTITION BY ext) = ord)
                   AND (phone IS NULL OR bool_and(phone_free) OVER (PARTITION BY phone) OR min(ord) OVER (PARTITION BY phone) = ord)
                   AND (email IS NULL OR bool_and(email_free) OVER (PARTITION BY email) OR min(ord) OVER (PARTITION BY email) = ord)
                   AND (token IS NULL OR min(ord) OVER (PARTITION BY token) = ord)
                   AND (target IS NULL OR min(ord) OVER (PARTITION BY target) = ord) AS first
                  FROM cb) x) y
       WHERE (cut IS NULL OR ord < cut) AND (forgetting IS NULL OR ord <= forgetting)`, shape);
  }
  await tx.query('DROP TABLE cb'); // a page may hold several runs of imports between bulk updates
}

/**
 * Applies the records `select` takes from cb as a wave (`shape`, or that of the records taken; their
 * targets found again when `refind`) and removes them from cb. A patch that only updates (an
 * unsubscription) and, first in its wave, found no customer is done with too: it waited for every
 * earlier record naming its identifiers, so none will create that customer now.
 */
async function applyTaken(tx: ProjectionTx, select: string, shape?: WaveShape, refind = false): Promise<void> {
  await tx.query(`CREATE TEMP TABLE wave ON COMMIT DROP AS ${select}`);
  if (refind) await tx.query(`UPDATE wave SET target = ${TARGET('wave')}`);
  await applyWave(tx, 'wave', shape ?? (await waveShape(tx, false, 'wave')));
  await tx.query(`DELETE FROM cb WHERE ord IN (SELECT ord FROM wave)`);
  await tx.query(`DROP TABLE wave`);
}

/** Deletes the records of table `t` that name an identifier of a forgotten customer. */
const NAMING_FORGOTTEN = (t: string) => `DELETE FROM ${t} WHERE EXISTS (SELECT 1 FROM forgotten_identifiers) AND EXISTS (SELECT 1 FROM forgotten_identifiers f WHERE
        (f.kind = 'external_id' AND f.hash = identifier_hash(${t}.ext)) OR (f.kind = 'phone' AND f.hash = identifier_hash(${t}.phone))
        OR (f.kind = 'email' AND f.hash = identifier_hash(${t}.email)))`;

/**
 * How many waves over the whole page a page may take before the records left are applied one at a
 * time (applyInOrder). Each wave costs a few statements over every record left, so a page where one
 * phone or e-mail is shared by many writers (a placeholder e-mail given to guests and a registered
 * customer alike) would otherwise cost a wave per record: quadratic. 0 applies every page that
 * repeats an identifier one record at a time, without the waves or the repeats' shortcuts
 * (applyOwnRepeats): the reference the tests hold those to.
 */
export const customersMerge = { wavesBeforeInOrder: 8 };

/**
 * The records left in cb applied one at a time in log order, in one call: a PL/pgSQL loop (a
 * temporary function) running the statements of a wave (waveStatements) over a one-record table,
 * after dropping the record if it names a forgotten identifier and finding its target. What the
 * waves do in sets, by definition; under 1 ms a record, against a few statements over the page per wave.
 */
async function applyInOrder(tx: ProjectionTx): Promise<void> {
  const sql = waveStatements('one');
  await tx.query(`CREATE TEMP TABLE one ON COMMIT DROP AS SELECT * FROM cb LIMIT 0;
    CREATE FUNCTION pg_temp.customers_in_order() RETURNS void LANGUAGE plpgsql AS $fn$
    DECLARE
      in_turn bigint;
    BEGIN
      FOR in_turn IN SELECT ord FROM cb ORDER BY ord LOOP
        DELETE FROM one;
        INSERT INTO one SELECT * FROM cb WHERE ord = in_turn;
        ${NAMING_FORGOTTEN('one')};
        UPDATE one SET target = ${TARGET('one')};
        ${sql.forgetting};
        ${sql.update};
        ${sql.insert};
      END LOOP;
      DELETE FROM cb;
    END
    $fn$`);
  // Planned with hash and merge joins off: the one-record table has no statistics (see queryByIndex).
  await queryByIndex(tx, 'SELECT pg_temp.customers_in_order()');
  await tx.query('DROP FUNCTION pg_temp.customers_in_order(); DROP TABLE one');
}

/**
 * Whether records sharing a phone (or e-mail) must apply one after another: not when every one of them
 * is `free`, that is, has an external_id, forgets nothing, and no customer without an external_id has
 * that phone. Such a record matches by its external_id and otherwise creates a customer (with that
 * external_id): it neither finds nor makes a customer another of them could find by the phone. A
 * record without an external_id (it takes any customer with the phone) or a customer without one (the
 * fallback of a record whose external_id is unknown) makes the order matter again. Repeats of an
 * external_id, token or target always order. Computed once a page is found to repeat an identifier,
 * and again every wave after that: a customer without an external_id that the group's first record
 * took has one now, so the records after it are free again (else a placeholder phone shared by
 * thousands of customers and one guest would take a wave per record), and one that a record of the
 * group without an external_id created mid-page makes them ordered.
 */
const FREE = (column: 'phone' | 'email') =>
  `(ext IS NOT NULL AND NOT rec ? 'is_forgotten' AND NOT EXISTS (SELECT 1 FROM customers c WHERE c.${column} = cb.${column} AND c.external_id IS NULL))`;
const SET_FREE = `phone_free = ${FREE('phone')}, email_free = ${FREE('email')}`;

/** The phone (normalised on import) and e-mail (lower-cased) a record is matched by. */
const PHONE_OF = (rec: string) => `${rec}->>'$phone'`;
const EMAIL_OF = (rec: string) => `lower(nullif(${rec}->>'email', ''))`;

/**
 * Who a record of table `t` writes as, by what its customer is found with (see TARGET): its
 * external_id, or else its phone, or else its e-mail, or else itself alone (nothing to match it by:
 * each such record is a customer of its own). A phone no customer has and no other record of the
 * page names (`lone_phone`) finds nothing, so such a record is found by its e-mail when it has one
 * (phone orders of guests given a placeholder e-mail: one customer, found by the e-mail). Records of
 * one writer find one customer: the one the first of them finds or makes (it has that external_id,
 * phone or e-mail afterwards).
 */
const WRITER = (t: string) => `CASE WHEN ${t}.ext IS NOT NULL THEN 'x' || ${t}.ext
      WHEN ${t}.phone IS NOT NULL AND NOT (${t}.lone_phone AND ${t}.email IS NOT NULL) THEN 'p' || ${t}.phone
      WHEN ${t}.email IS NOT NULL THEN 'm' || ${t}.email ELSE 'o' || ${t}.ord END`;

/**
 * Repeats of one customer that nothing else in the page touches (see OWN_REPEATS), applied without
 * a wave over the whole page for each repeat (a re-sync behind a lagging projection repeats every
 * customer once per chunk in a page, and those waves made it ten times slower than new customers):
 * - plain patches (no list operation, no "" removal, no deleting or no_create) apply as a
 *   concatenation, so they become one record: their fields in log order (later ones win), the
 *   first record's place and target, the last one's time and position, the merged record's phone
 *   and e-mail;
 * - the others go in steps, the n-th of every customer in step n, each step a wave of its own
 *   records only (their targets found again: the customer the first of them found or made).
 * Repeats carrying a token or a forgetting stay with the page's waves.
 */
async function applyOwnRepeats(tx: ProjectionTx): Promise<void> {
  await tx.query(OWN_REPEATS);
  await tx.query(`WITH gone AS (DELETE FROM cb WHERE ord IN (SELECT ord FROM own WHERE plain) RETURNING cb.*)
    INSERT INTO cb (ord, position, at, rec, ext, phone, email, token, merge, phone_free, email_free, first_at, target)
    SELECT ord, position, at, rec, ext, ${PHONE_OF('rec')}, ${EMAIL_OF('rec')}, NULL, false, NULL, NULL, first_at, target
      FROM (SELECT min(ord) AS ord, max(position) AS position, (array_agg(at ORDER BY ord DESC))[1] AS at, jsonb_merge_agg(rec ORDER BY ord) AS rec,
                   min(ext) AS ext, (array_agg(at ORDER BY ord))[1] AS first_at, (array_agg(target ORDER BY ord))[1] AS target
              FROM gone JOIN own USING (ord) GROUP BY own.who) g`);
  const { rows } = await tx.query<{ steps: number }>(`SELECT coalesce(max(step), 0)::int AS steps FROM own WHERE NOT plain AND steps`);
  for (let step = 1; step <= rows[0].steps; step++) {
    await applyTaken(tx, `SELECT cb.* FROM cb JOIN own USING (ord) WHERE own.step = ${step} AND NOT own.plain AND own.steps`, undefined, step > 1);
  }
  await tx.query(`DROP TABLE own`);
}

/**
 * The page's records that repeat one customer (see WRITER) which no other writer of the page can
 * reach: no other writer names any of their phones, e-mails or targets. Nothing else then finds
 * their customer in between, and after the first of them the others find the customer it found or
 * made, so they can be applied apart from the rest of the page. Each with its step (its place among
 * the customer's records), and whether all of the customer's records are plain patches, or can go in
 * steps (no token, no forgetting).
 */
const OWN_REPEATS = `CREATE TEMP TABLE own ON COMMIT DROP AS
  WITH lone AS (SELECT cb.*, ext IS NULL AND phone IS NOT NULL AND count(*) OVER (PARTITION BY phone) = 1
                             AND NOT EXISTS (SELECT 1 FROM customers c WHERE c.phone = cb.phone) AS lone_phone FROM cb),
  keyed AS (SELECT ord, phone, email, target, ${WRITER('lone')} AS who,
                        NOT merge AND token IS NULL AND NOT rec ?| ARRAY['is_deleted', 'is_forgotten', '$no_create'] AS plain,
                        token IS NULL AND NOT rec ? 'is_forgotten' AS steps FROM lone),
  writers AS (
    SELECT 'p' AS k, phone AS v, count(DISTINCT who) AS n FROM keyed WHERE phone IS NOT NULL GROUP BY phone
    UNION ALL SELECT 'm', email, count(DISTINCT who) FROM keyed WHERE email IS NOT NULL GROUP BY email
    UNION ALL SELECT 't', target::text, count(DISTINCT who) FROM keyed WHERE target IS NOT NULL GROUP BY target),
  shared AS (
    SELECT who FROM keyed JOIN writers w ON w.k = 'p' AND w.v = keyed.phone WHERE w.n > 1
    UNION SELECT who FROM keyed JOIN writers w ON w.k = 'm' AND w.v = keyed.email WHERE w.n > 1
    UNION SELECT who FROM keyed JOIN writers w ON w.k = 't' AND w.v = keyed.target::text WHERE w.n > 1),
  chains AS (
    SELECT who, bool_and(plain) AS plain, bool_and(steps) AS steps FROM keyed WHERE left(who, 1) <> 'o' GROUP BY who HAVING count(*) > 1),
  mine AS (SELECT k.ord, k.who, c.plain, c.steps FROM keyed k JOIN chains c USING (who) WHERE NOT EXISTS (SELECT 1 FROM shared s WHERE s.who = k.who))
  SELECT ord, who, plain, steps, 0::bigint AS step FROM mine WHERE plain
  UNION ALL
  SELECT ord, who, plain, steps, row_number() OVER (PARTITION BY who ORDER BY ord) FROM mine WHERE NOT plain`;

/** Whether the remaining records repeat nothing that orders them (strictly: no identifier repeats at all). */
const DISTINCT_STRICT = `count(ext) = count(DISTINCT ext) AND count(phone) = count(DISTINCT phone) AND count(email) = count(DISTINCT email)
        AND count(token) = count(DISTINCT token) AND count(target) = count(DISTINCT target)`;
const DISTINCT_RELAXED = `count(ext) = count(DISTINCT ext) AND count(token) = count(DISTINCT token) AND count(target) = count(DISTINCT target)
        AND NOT EXISTS (SELECT 1 FROM cb g WHERE g.phone IS NOT NULL GROUP BY g.phone HAVING count(*) > 1 AND NOT bool_and(g.phone_free))
        AND NOT EXISTS (SELECT 1 FROM cb g WHERE g.email IS NOT NULL GROUP BY g.email HAVING count(*) > 1 AND NOT bool_and(g.email_free))`;

async function waveShape(tx: ProjectionTx, relaxed: boolean, table = 'cb'): Promise<WaveShape> {
  const { rows } = await tx.query<WaveShape>(`SELECT count(*)::int AS remaining, count(target)::int AS targets,
      count(*) FILTER (WHERE rec ? 'is_forgotten')::int AS forgetting, count(ext) > count(DISTINCT ext) OR count(email) > count(DISTINCT email) OR count(phone) > count(DISTINCT phone) AS "repeats",
      ${relaxed ? DISTINCT_RELAXED : DISTINCT_STRICT} AS distinct FROM ${table}`);
  return rows[0];
}

/** What the applying statements may skip: updates when no record has a customer yet, forgetting when none forgets. */
interface WaveShape {
  remaining: number;
  targets: number;
  forgetting: number;
  repeats: boolean;
  distinct: boolean;
}

/** The customer a record of table `t` applies to (external_id, then phone, then e-mail, then cb_token; see README). */
const TARGET = (t: string) => `coalesce(
      (SELECT c.customer_id FROM customers c WHERE c.external_id = ${t}.ext),
      CASE WHEN ${t}.ext IS NULL THEN coalesce(
             (SELECT min(c.customer_id) FROM customers c WHERE c.phone = ${t}.phone),
             (SELECT min(c.customer_id) FROM customers c WHERE c.email = ${t}.email),
             (SELECT min(c.customer_id) FROM customers c WHERE c.data->>'cb_token' = ${t}.token AND ${t}.rec ? '$token'))
           ELSE coalesce(
             (SELECT min(c.customer_id) FROM customers c WHERE c.phone = ${t}.phone AND c.external_id IS NULL),
             (SELECT min(c.customer_id) FROM customers c WHERE c.email = ${t}.email AND c.external_id IS NULL))
      END)`;

/**
 * customer_merge for records that need it (list operations, "" removals: the `merge` column, set as
 * the page is loaded); a plain record is one jsonb concatenation without a function call.
 */
const MERGE = (cur: string, w: string) =>
  `CASE WHEN ${w}.merge THEN customer_merge(${cur}, ${w}.rec) ELSE ${cur} || (${w}.rec - ARRAY['$phone', '$token', '$no_create']) END`;

/** True when merging the record needs more than a concatenation: a list operation or a key sent as "". */
const NEEDS_MERGE = (rec: string) =>
  `(${rec} ?| ARRAY['tags.add', 'tags.remove', 'mailing_lists.add', 'mailing_lists.remove'] OR jsonb_path_exists(${rec}, '$.* ? (@ == "")'))`;

// The update and the insert read `merged` three times each; OFFSET 0 keeps their subqueries from being
// pulled up, which would compute the merge (a new jsonb per record) once per use instead of once.
function waveStatements(wave: string): { forgetting: string; update: string; insert: string } {
  return {
    // Forgetting: remember the hashes of every identifier the customer had or is sent with.
    forgetting: `INSERT INTO forgotten_identifiers (kind, hash)
      SELECT DISTINCT k, identifier_hash(v) FROM (
        SELECT w.ext AS e, w.phone AS p, w.email AS m, c.external_id AS ce, c.phone AS cp, c.email AS cm
          FROM ${wave} w LEFT JOIN customers c ON c.customer_id = w.target
         WHERE (w.rec->>'is_forgotten')::boolean IS TRUE) s,
      LATERAL (VALUES ('external_id', e), ('phone', p), ('email', m), ('external_id', ce), ('phone', cp), ('email', cm)) AS ids(k, v)
      WHERE v IS NOT NULL ON CONFLICT DO NOTHING`,
    update: `UPDATE customers c SET
        data = CASE WHEN forget THEN '{"is_forgotten": true}'::jsonb ELSE merged END,
        external_id = CASE WHEN forget THEN NULL ELSE merged->>'external_id' END,
        phone = CASE WHEN forget THEN NULL WHEN u.rec ? 'phone_number' THEN u.rec->>'$phone' ELSE c.phone END,
        email = CASE WHEN forget THEN NULL ELSE lower(merged->>'email') END,
        is_deleted = c.is_deleted OR coalesce((u.rec->>'is_deleted')::boolean, false),
        is_forgotten = forget,
        updated_at = u.at,
        updated_position = u.position
      FROM (SELECT w.target, w.rec, w.at, w.position, ${MERGE('c2.data', 'w')} AS merged,
                   coalesce((w.rec->>'is_forgotten')::boolean, false) AS forget
              FROM ${wave} w JOIN customers c2 ON c2.customer_id = w.target WHERE w.target IS NOT NULL AND NOT c2.is_forgotten OFFSET 0) u
     WHERE c.customer_id = u.target`,
    // A new customer's data is the record itself (less the matching aids) unless it needs customer_merge.
    insert: `INSERT INTO customers (customer_id, external_id, phone, email, data, is_deleted, is_forgotten, created_at, updated_at, updated_position)
    SELECT w.ord,
           CASE WHEN forget THEN NULL ELSE merged->>'external_id' END,
           CASE WHEN forget THEN NULL ELSE w.phone END,
           CASE WHEN forget THEN NULL ELSE lower(merged->>'email') END,
           CASE WHEN forget THEN '{"is_forgotten": true}'::jsonb ELSE merged END,
           coalesce((w.rec->>'is_deleted')::boolean, false), forget, w.first_at, w.at, w.position
      FROM (SELECT ${wave}.*, CASE WHEN merge THEN customer_merge('{}'::jsonb, rec) ELSE rec - ARRAY['$phone', '$token', '$no_create'] END AS merged,
                   coalesce((rec->>'is_forgotten')::boolean, false) AS forget
              FROM ${wave} WHERE target IS NULL AND NOT rec ? '$no_create' OFFSET 0) w`,
  };
}

async function applyWave(tx: ProjectionTx, wave: 'cb' | 'wave', shape: WaveShape): Promise<void> {
  const sql = waveStatements(wave);
  if (shape.forgetting > 0) await queryByIndex(tx, sql.forgetting);
  if (shape.targets > 0) await queryByIndex(tx, sql.update);
  await tx.query(sql.insert);
}
