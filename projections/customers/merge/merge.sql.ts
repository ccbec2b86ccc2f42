/**
 * The SQL of the customers merge: how a staged record finds its customer (TARGET), when records that
 * share a phone or e-mail must go in order (FREE), who writes a record (WRITER), and the statements
 * a wave runs (waveStatements). The rules themselves, stated once in TypeScript, are the model in
 * libs/customers (customer-merge.model.ts); these fragments apply them to sets of records, and the
 * tests hold the two to the same customers.
 */

/**
 * A staged record's place in the log (`ord`): its chunk's position × ORD_SPAN + its place n in the
 * chunk (from 1; a chunk holds far fewer records). A customer a record makes takes that place as its
 * id, so the id names its first change (CREATION in customer-history.ts).
 */
export const ORD_SPAN = 10000;
export const ORD_OF = (position: string, n: string) => `${position} * ${ORD_SPAN} + ${n}`;
/** The place n in its chunk of the record at `ord`, whose chunk is at `position`. */
export const N_OF = (ord: string, position: string) => `(${ord} - ${position} * ${ORD_SPAN})::int`;

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
export const FREE = (column: 'phone' | 'email') => `(${FREE_RECORD('cb')} AND ${FREE_VALUE(column, 'cb')})`;
/** FREE's part about the record of table `t` itself. */
const FREE_RECORD = (t: string) => `${t}.ext IS NOT NULL AND NOT ${t}.rec ? 'is_forgotten'`;
/** FREE's part about the customers: none without an external_id has the `column` of the record of table `t`. */
const FREE_VALUE = (column: 'phone' | 'email', t: string) => `NOT EXISTS (SELECT 1 FROM customers c WHERE c.${column} = ${t}.${column} AND c.external_id IS NULL)`;
/** Whether every record of the group g (records of cb sharing `column`) is FREE, with one look at the customers for the group. */
const GROUP_FREE = (column: 'phone' | 'email') => `bool_and(${FREE_RECORD('g')}) AND ${FREE_VALUE(column, 'g')}`;
export const SET_FREE = `phone_free = ${FREE('phone')}, email_free = ${FREE('email')}`;

/** The phone (normalised on import) and e-mail (lower-cased) a record is matched by. */
export const PHONE_OF = (rec: string) => `${rec}->>'$phone'`;
export const EMAIL_OF = (rec: string) => `lower(nullif(${rec}->>'email', ''))`;

/**
 * Who a record of table `t` writes as, by what its customer is found with (see TARGET): its
 * external_id, or else its phone, or else its e-mail, or else itself alone (nothing to match it by:
 * each such record is a customer of its own). A phone no customer has and no other record of the
 * page names (`lone_phone`) finds nothing, so such a record is found by its e-mail when it has one
 * (phone orders of guests given a placeholder e-mail: one customer, found by the e-mail). Records of
 * one writer find one customer: the one the first of them finds or makes (it has that external_id,
 * phone or e-mail afterwards).
 */
export const WRITER = (t: string) => `CASE WHEN ${t}.ext IS NOT NULL THEN 'x' || ${t}.ext
      WHEN ${t}.phone IS NOT NULL AND NOT (${t}.lone_phone AND ${t}.email IS NOT NULL) THEN 'p' || ${t}.phone
      WHEN ${t}.email IS NOT NULL THEN 'm' || ${t}.email ELSE 'o' || ${t}.ord END`;

/**
 * The page's records that repeat one customer (see WRITER) which no other writer of the page can
 * reach: no other writer names any of their phones, e-mails or targets. Nothing else then finds
 * their customer in between, and after the first of them the others find the customer it found or
 * made, so they can be applied apart from the rest of the page. Each with its step (its place among
 * the customer's records), and whether all of the customer's records are plain patches, or can go in
 * steps (no token, no forgetting).
 */
export const OWN_REPEATS = `CREATE TEMP TABLE own ON COMMIT DROP AS
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

/**
 * Whether two of the remaining records may have one writer (WRITER), all that OWN_REPEATS looks for:
 * an external_id twice, or a phone or e-mail twice among records without one. Records with external
 * ids of their own that share a phone (customers sent again behind a lagging projection, a shop's
 * placeholder phone) repeat no writer, and OWN_REPEATS would find nothing.
 */
export const WRITERS_MAY_REPEAT = `count(ext) > count(DISTINCT ext)
        OR count(phone) FILTER (WHERE ext IS NULL) > count(DISTINCT phone) FILTER (WHERE ext IS NULL)
        OR count(email) FILTER (WHERE ext IS NULL) > count(DISTINCT email) FILTER (WHERE ext IS NULL)`;

/** Whether the remaining records repeat nothing that orders them (strictly: no identifier repeats at all). */
export const DISTINCT_STRICT = `count(ext) = count(DISTINCT ext) AND count(phone) = count(DISTINCT phone) AND count(email) = count(DISTINCT email)
        AND count(token) = count(DISTINCT token) AND count(target) = count(DISTINCT target)`;
/**
 * Whether the remaining records repeat nothing that orders them, a repeated phone or e-mail being
 * free (FREE) when all of its records are. FREE is found here, not read from cb's phone_free and
 * email_free: a page that passes goes in one wave, which does not read them, so they are stored only
 * for the waves of a page that does not.
 */
export const DISTINCT_RELAXED = `count(ext) = count(DISTINCT ext) AND count(token) = count(DISTINCT token) AND count(target) = count(DISTINCT target)
        AND NOT EXISTS (SELECT 1 FROM cb g WHERE g.phone IS NOT NULL GROUP BY g.phone HAVING count(*) > 1 AND NOT (${GROUP_FREE('phone')}))
        AND NOT EXISTS (SELECT 1 FROM cb g WHERE g.email IS NOT NULL GROUP BY g.email HAVING count(*) > 1 AND NOT (${GROUP_FREE('email')}))`;

/** The customer a record of table `t` applies to (external_id, then phone, then e-mail, then cb_token; see README). */
export const TARGET = (t: string) => `coalesce(
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
export const MERGE = (cur: string, w: string) =>
  `CASE WHEN ${w}.merge THEN customer_merge(${cur}, ${w}.rec) ELSE ${cur} || (${w}.rec - ARRAY['$phone', '$token', '$no_create']) END`;

/** A record less the keys about the change alone (CHANGE_ONLY_FIELDS: consent_source), which the customer never keeps. */
export const KEPT = (rec: string) => `CASE WHEN ${rec} ? 'consent_source' THEN ${rec} - 'consent_source' ELSE ${rec} END`;

/** True when merging the record needs more than a concatenation: a list operation or a key sent as "". */
export const NEEDS_MERGE = (rec: string) =>
  `(${rec} ?| ARRAY['tags.add', 'tags.remove', 'mailing_lists.add', 'mailing_lists.remove'] OR jsonb_path_exists(${rec}, '$.* ? (@ == "")'))`;

// The update and the insert read `merged` three times each; OFFSET 0 keeps their subqueries from being
// pulled up, which would compute the merge (a new jsonb per record) once per use instead of once.

export function waveStatements(wave: string): { changes: string; forgetting: string; update: string; insert: string } {
  return {
    // Each record that changes a customer it found (not forgotten) is a change of that customer's
    // history: where it is in the log. Before the update, which may forget the customer. A record that
    // makes a customer is not listed: the new customer's id names it (CREATION in customer-history.ts).
    changes: `INSERT INTO customer_changes (customer_id, position, n, ext)
      SELECT w.target, w.position, ${N_OF('w.ord', 'w.position')}, w.ext
        FROM ${wave} w JOIN customers c ON c.customer_id = w.target
       WHERE NOT w.logged AND NOT c.is_forgotten`,
    // Forgetting: remember the hashes of every identifier the customer had or is sent with, and whose
    // they were (the customer found, or the one the insert below makes with the record's ord), so what
    // named them (a sale, a campaign event) still belongs to that customer, whose row stays, empty.
    forgetting: `INSERT INTO forgotten_identifiers (kind, hash, customer_id)
      SELECT DISTINCT ON (k, identifier_hash(v)) k, identifier_hash(v), id FROM (
        SELECT coalesce(w.target, w.ord) AS id, w.ext AS e, w.phone AS p, w.email AS m, c.external_id AS ce, c.phone AS cp, c.email AS cm
          FROM ${wave} w LEFT JOIN customers c ON c.customer_id = w.target
         WHERE (w.rec->>'is_forgotten')::boolean IS TRUE) s,
      LATERAL (VALUES ('external_id', e), ('phone', p), ('email', m), ('external_id', ce), ('phone', cp), ('email', cm)) AS ids(k, v)
      WHERE v IS NOT NULL ORDER BY k, identifier_hash(v), id ON CONFLICT DO NOTHING`,
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
    insert: `INSERT INTO customers (customer_id, external_id, phone, email, data, is_deleted, is_forgotten, created_at, updated_at, updated_position, created_ext)
    SELECT w.ord,
           CASE WHEN forget THEN NULL ELSE merged->>'external_id' END,
           CASE WHEN forget THEN NULL ELSE w.phone END,
           CASE WHEN forget THEN NULL ELSE lower(merged->>'email') END,
           CASE WHEN forget THEN '{"is_forgotten": true}'::jsonb ELSE merged END,
           coalesce((w.rec->>'is_deleted')::boolean, false), forget, w.first_at, w.at, w.position, w.ext
      FROM (SELECT ${wave}.*, CASE WHEN merge THEN customer_merge('{}'::jsonb, rec) ELSE rec - ARRAY['$phone', '$token', '$no_create'] END AS merged,
                   coalesce((rec->>'is_forgotten')::boolean, false) AS forget
              FROM ${wave} WHERE target IS NULL AND NOT rec ? '$no_create' OFFSET 0) w`,
  };
}
