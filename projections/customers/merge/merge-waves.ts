import { customerEffect, EVENTS_IMPORTED, isDeletion, type EventDeletion, type EventRecord } from '#mds/activity';
import type { RecordedEvent } from '#mds/event-store';
import { dataOf, pageRecords, queryByIndex, type ProjectionTx } from '../../runtime/projection';
import { eraseForgotten } from '../erasure';
import { DISTINCT_RELAXED, DISTINCT_STRICT, EMAIL_OF, KEPT, N_OF, NEEDS_MERGE, ORD_OF, OWN_REPEATS, PHONE_OF, SET_FREE, TARGET, waveStatements, WRITERS_MAY_REPEAT } from './merge.sql';

/**
 * The wave engine of the customers merge: a page of chunks goes into a temporary table (cb); then, in
 * waves, every record is matched against the customers and each wave applies, with a handful of
 * statements, the records that are first among the remaining ones for every identifier and target
 * they touch, so records of one identity apply in log order (see the README's "Decisions"). What a
 * record does to its customer is the model's (libs/customers customer-merge.model.ts); this file
 * decides only which records may go together.
 */

/**
 * The page's table (cb), kept by the connection and emptied at every commit: creating it for every
 * page and dropping it wrote the catalogs each time (0.8 ms a page). Sent before every applyImports,
 * which finds it empty (a page may hold runs of imports between bulk updates, and a transaction
 * several pages: emptied here too).
 */
export const PAGE_TABLE = `SET LOCAL client_min_messages = warning;
  CREATE TEMP TABLE IF NOT EXISTS cb (ord bigint, position bigint, at timestamptz, rec jsonb, ext text, phone text, email text, token text,
    merge boolean, phone_free boolean, email_free boolean, first_at timestamptz, logged boolean, target bigint) ON COMMIT DELETE ROWS;
  DELETE FROM cb`;

/** Applies a run of import chunks (and subscription events) through cb, made ready by PAGE_TABLE. */
export async function applyImports(events: RecordedEvent[], tx: ProjectionTx): Promise<void> {
  // Customer chunks go to SQL as stored (unparsed when read as text); subscription events become
  // customer patches, and events without an effect stay as null, so every record keeps its index.
  const patches = (e: RecordedEvent) =>
    e.type === EVENTS_IMPORTED
      ? dataOf<{ records: Array<EventRecord | EventDeletion> }>(e).records.map((r) => (isDeletion(r) ? null : (customerEffect(r) ?? null)))
      : undefined;
  // The first wave's targets are resolved as the page is loaded: one pass instead of a load and an update.
  const page = pageRecords(events, '$1', patches);
  await tx.query(
    `INSERT INTO cb (ord, position, at, rec, ext, phone, email, token, merge, phone_free, email_free, first_at, logged, target)
     SELECT x.*, ${TARGET('x')} AS target FROM (
       SELECT ${ORD_OF('c.position', 'r.n')} AS ord, c.position, c.at, ${KEPT('r.rec')} AS rec,
              nullif(r.rec->>'external_id', '') AS ext, ${PHONE_OF('r.rec')} AS phone, ${EMAIL_OF('r.rec')} AS email,
              coalesce(r.rec->>'$token', nullif(r.rec->>'cb_token', '')) AS token, ${NEEDS_MERGE(KEPT('r.rec'))} AS merge,
              NULL::boolean AS phone_free, NULL::boolean AS email_free, c.at AS first_at, false AS logged
         FROM ${page.from}
        WHERE jsonb_typeof(r.rec) = 'object') x`,
    [page.json],
  );
  let relaxed = false;
  let forgets = false;
  for (let wave = 0; ; wave++) {
    if (wave > 100_000) throw new Error('customer merge does not converge');
    // Targets change as earlier waves create and take customers; so does which repeats order the records (FREE).
    if (wave > 0) await tx.query(`UPDATE cb SET target = ${TARGET('cb')}${relaxed ? `, ${SET_FREE}` : ''}`);
    // When no identifier or target repeats among the remaining records (the usual page), they all go in one
    // wave: cb itself. Otherwise see the wave below.
    let shape = await waveShape(tx, relaxed);
    if (wave === 0) forgets = shape.forgetting > 0;
    if (shape.remaining === 0) break;
    if (wave === 0 && shape.writersRepeat && shape.forgetting === 0 && customersMerge.wavesBeforeInOrder > 0) {
      await applyOwnRepeats(tx);
      shape = await waveShape(tx, relaxed);
    }
    if (!shape.distinct && !relaxed) {
      // Identifiers repeat: look again, letting pass the repeats that do not order the records (see FREE).
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
    // The wave below reads which repeats order the records; later waves find them again with the targets.
    if (relaxed && wave === 0) await tx.query(`UPDATE cb SET ${SET_FREE}`);
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
  // What the forgotten customers left anywhere goes in the same transaction.
  if (forgets) await eraseForgotten(tx, events);
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
 * after finding its target. What the
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
        UPDATE one SET target = ${TARGET('one')};
        ${sql.changes};
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
  // Each merged record is still a change of its customer's history (the one the first of them finds
  // or makes): logged here, since the merged record stands for them all in the wave. The first of
  // them, when it makes the customer, is named by the customer's id instead (see waveStatements).
  await tx.query(`WITH gone AS (DELETE FROM cb WHERE ord IN (SELECT ord FROM own WHERE plain) RETURNING cb.*),
    firsts AS (SELECT own.who, min(ord) AS ord, (array_agg(target ORDER BY ord))[1] AS target FROM gone JOIN own USING (ord) GROUP BY own.who),
    logged AS (INSERT INTO customer_changes (customer_id, position, n, ext)
               SELECT coalesce(f.target, f.ord), gone.position, ${N_OF('gone.ord', 'gone.position')}, gone.ext FROM gone JOIN own USING (ord) JOIN firsts f ON f.who = own.who
                WHERE f.target IS NOT NULL OR gone.ord <> f.ord)
    INSERT INTO cb (ord, position, at, rec, ext, phone, email, token, merge, phone_free, email_free, first_at, target, logged)
    SELECT ord, position, at, rec, ext, ${PHONE_OF('rec')}, ${EMAIL_OF('rec')}, NULL, false, NULL, NULL, first_at, target, true
      FROM (SELECT min(ord) AS ord, max(position) AS position, (array_agg(at ORDER BY ord DESC))[1] AS at, jsonb_merge_agg(rec ORDER BY ord) AS rec,
                   min(ext) AS ext, (array_agg(at ORDER BY ord))[1] AS first_at, (array_agg(target ORDER BY ord))[1] AS target
              FROM gone JOIN own USING (ord) GROUP BY own.who) g`);
  const { rows } = await tx.query<{ steps: number }>(`SELECT coalesce(max(step), 0)::int AS steps FROM own WHERE NOT plain AND steps`);
  for (let step = 1; step <= rows[0].steps; step++) {
    await applyTaken(tx, `SELECT cb.* FROM cb JOIN own USING (ord) WHERE own.step = ${step} AND NOT own.plain AND own.steps`, undefined, step > 1);
  }
  await tx.query(`DROP TABLE own`);
}

async function waveShape(tx: ProjectionTx, relaxed: boolean, table = 'cb'): Promise<WaveShape> {
  const { rows } = await tx.query<WaveShape>(`SELECT count(*)::int AS remaining, count(target)::int AS targets,
      count(*) FILTER (WHERE rec ? 'is_forgotten')::int AS forgetting, ${WRITERS_MAY_REPEAT} AS "writersRepeat",
      ${relaxed ? DISTINCT_RELAXED : DISTINCT_STRICT} AS distinct FROM ${table}`);
  return rows[0];
}

/** What the applying statements may skip: changes and updates when no record has a customer yet, forgetting when none forgets. */
interface WaveShape {
  remaining: number;
  targets: number;
  forgetting: number;
  /** Two records may have one writer (WRITERS_MAY_REPEAT): applyOwnRepeats has work. */
  writersRepeat: boolean;
  distinct: boolean;
}

async function applyWave(tx: ProjectionTx, wave: 'cb' | 'wave', shape: WaveShape): Promise<void> {
  const sql = waveStatements(wave);
  // Changes are of customers found (a new customer's id names its first change): none without targets.
  if (shape.targets > 0) await queryByIndex(tx, sql.changes);
  if (shape.forgetting > 0) await queryByIndex(tx, sql.forgetting);
  if (shape.targets > 0) await queryByIndex(tx, sql.update);
  await tx.query(sql.insert);
}
