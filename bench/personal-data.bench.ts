// Personal data in an immutable log: the two recognised ways, measured on our import path and our
// set-based projections, beside what we do today, in the same run on the same PostgreSQL.
//   today       the chunk appended as is (personal fields in the log);
//   payloads    forgettable payloads: each record's personal fields go to a personal-data table
//               (one row per record, keyed by the chunk's event id and the record's place), written
//               in the append's transaction; the event keeps the rest and keyed hashes (HMAC) of the
//               e-mail and phone for matching; forgetting deletes rows;
//   chunk rows  forgettable payloads with one row per chunk (the records' personal fields as a list);
//   shredding   crypto-shredding: each record's personal fields sealed in the event with AES-256-GCM
//               under a data key of its own (node:crypto), the keys (32 bytes a record) written in the
//               append's transaction; forgetting deletes keys.
// Accept: records/s from parsed records to committed (split, hash, seal, append, rows/keys).
// Project: records/s for the projection's first step, every record of a page with its personal
// fields back, in SQL (payloads: a join) or in Node (shredding: pgcrypto has no AES-GCM, so the
// page's sealed fields are opened in Node and handed to SQL, as the projection would have to).
import { createCipheriv, createDecipheriv, createHmac, randomBytes, randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { PostgresEventStore, POSTGRES_EVENT_STORE_MIGRATIONS } from '#mds/event-store';
import { createPool, runMigrations, type Pool } from '#mds/platform';
import { benchDatabase, median } from './bench-database';

const CHUNKS = Number(process.env.BENCH_PERSONAL_CHUNKS ?? 100);
const REPS = Number(process.env.BENCH_REPS ?? 3);
const PER_CHUNK = 1000;
const PERSONAL = ['first_name', 'last_name', 'email', 'phone_number', 'street_address', 'zip_code', 'city', 'date_of_birth', 'cb_token'];
const HASH_KEY = randomBytes(32);

type Rec = Record<string, unknown>;
const customer = (n: number): Rec => ({
  external_id: `P-${n}`, email: `p.${n}@example.com`, phone_number: `+35840${String(n).padStart(7, '0')}`, first_name: `First${n}`, last_name: `Last${n}`,
  street_address: `Street ${n % 300}`, zip_code: '00100', city: 'Helsinki', country: 'FI', can_email: n % 2 === 0, tags: ['vip', `t${n % 10}`], ACME__tier: 'gold',
});
const chunks = Array.from({ length: CHUNKS }, (_, c) => Array.from({ length: PER_CHUNK }, (_, i) => customer(c * PER_CHUNK + i)));
const hmac = (v: string) => createHmac('sha256', HASH_KEY).update(v).digest('base64url');

/** The record's personal fields apart from the rest; with `hashes`, keyed hashes of the e-mail and phone stay in the rest for matching. */
function split(record: Rec, hashes = true): { rest: Rec; personal: Rec } {
  const rest: Rec = {};
  const personal: Rec = {};
  for (const [k, v] of Object.entries(record)) (PERSONAL.includes(k) ? personal : rest)[k] = v;
  if (hashes && typeof record.email === 'string') rest.$email_h = hmac(record.email.toLowerCase());
  if (hashes && typeof record.phone_number === 'string') rest.$phone_h = hmac(record.phone_number);
  return { rest, personal };
}

interface Variant {
  name: string;
  accept(store: PostgresEventStore, pool: Pool, records: Rec[], rep: number, c: number): Promise<void>;
  project(pool: Pool, after: number, limit: number): Promise<number>;
}

const variants: Variant[] = [
  {
    name: 'today (personal fields in the log)',
    async accept(store, _pool, records, rep, c) {
      await store.append(`import-today-${rep}-${c}`, [{ id: randomUUID(), type: 'BenchToday', data: { records }, metadata: { schema: 1 } }]);
    },
    async project(pool, after, limit) {
      const { rows } = await pool.query(
        `SELECT count(*)::int AS n, count(DISTINCT r->>'email')::int AS e FROM (SELECT data FROM mds_events WHERE type = 'BenchToday' AND position > $1 ORDER BY position LIMIT $2) c
           CROSS JOIN LATERAL jsonb_array_elements(c.data->'records') r`, [after, limit]);
      return rows[0].n;
    },
  },
  {
    name: 'forgettable payloads (personal-data table)',
    async accept(store, pool, records, rep, c) {
      const id = randomUUID();
      const parts = records.map((r) => split(r));
      // The rows first (orphans of a failed append are harmless: nothing names them), then the event.
      await pool.query(`INSERT INTO bench_personal (event_id, n, data) SELECT $1, x.n, x.d FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS x(d, n)`, [id, JSON.stringify(parts.map((p) => p.personal))]);
      await store.append(`import-payloads-${rep}-${c}`, [{ id, type: 'BenchPayloads', data: { records: parts.map((p) => p.rest) }, metadata: { schema: 1 } }]);
    },
    async project(pool, after, limit) {
      const { rows } = await pool.query(
        `SELECT count(*)::int AS n, count(DISTINCT (r || coalesce(p.data, '{}'))->>'email')::int AS e
           FROM (SELECT id, data FROM mds_events WHERE type = 'BenchPayloads' AND position > $1 ORDER BY position LIMIT $2) c
           CROSS JOIN LATERAL jsonb_array_elements(c.data->'records') WITH ORDINALITY AS x(r, n)
           LEFT JOIN bench_personal p ON p.event_id = c.id AND p.n = x.n`, [after, limit]);
      return rows[0].n;
    },
  },
  {
    name: 'forgettable payloads, a row per chunk, hashes in SQL',
    async accept(store, pool, records, rep, c) {
      const id = randomUUID();
      const parts = records.map((r) => split(r, false));
      // One row holds the chunk's personal fields by record (forgetting one record empties its place).
      await pool.query(`INSERT INTO bench_personal_chunks (event_id, data) VALUES ($1, $2)`, [id, JSON.stringify(parts.map((p) => p.personal))]);
      await store.append(`import-chunkrows-${rep}-${c}`, [{ id, type: 'BenchChunkRows', data: { records: parts.map((p) => p.rest) }, metadata: { schema: 1 } }]);
    },
    async project(pool, after, limit) {
      const { rows } = await pool.query(
        // The chunk's records and its personal list zipped by place (each read once), the keyed hashes
        // for matching computed here (pgcrypto's hmac), so the log never holds them.
        `SELECT count(*)::int AS n, count(DISTINCT encode(hmac(convert_to(lower(x.d->>'email'), 'UTF8'), decode($3, 'hex'), 'sha256'), 'base64'))::int AS e,
                count(DISTINCT encode(hmac(convert_to(x.d->>'phone_number', 'UTF8'), decode($3, 'hex'), 'sha256'), 'base64'))::int AS p
           FROM (SELECT id, data FROM mds_events WHERE type = 'BenchChunkRows' AND position > $1 ORDER BY position LIMIT $2) c
           LEFT JOIN bench_personal_chunks p ON p.event_id = c.id
           CROSS JOIN LATERAL ROWS FROM (jsonb_array_elements(c.data->'records'), jsonb_array_elements(p.data)) WITH ORDINALITY AS x(r, d, n)`, [after, limit, HASH_KEY.toString('hex')]);
      return rows[0].n;
    },
  },
  {
    name: 'crypto-shredding (AES-256-GCM, a key per record)',
    async accept(store, pool, records, rep, c) {
      const id = randomUUID();
      const keys: string[] = [];
      const sealed = records.map((record) => {
        const { rest, personal } = split(record);
        const key = randomBytes(32);
        const iv = randomBytes(12);
        const cipher = createCipheriv('aes-256-gcm', key, iv);
        const ct = Buffer.concat([cipher.update(JSON.stringify(personal), 'utf8'), cipher.final()]);
        keys.push(key.toString('base64'));
        return { ...rest, $sealed: Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64') };
      });
      await pool.query(`INSERT INTO bench_keys (event_id, n, key) SELECT $1, x.n, decode(x.k, 'base64') FROM unnest($2::text[]) WITH ORDINALITY AS x(k, n)`, [id, keys]);
      await store.append(`import-shredding-${rep}-${c}`, [{ id, type: 'BenchShredding', data: { records: sealed }, metadata: { schema: 1 } }]);
    },
    async project(pool, after, limit) {
      // The page and its keys in one statement, opened in Node, handed back to SQL as the projection's input.
      const { rows } = await pool.query<{ r: Rec; key: Buffer | null }>(
        `SELECT x.r, k.key FROM (SELECT id, data FROM mds_events WHERE type = 'BenchShredding' AND position > $1 ORDER BY position LIMIT $2) c
           CROSS JOIN LATERAL jsonb_array_elements(c.data->'records') WITH ORDINALITY AS x(r, n)
           LEFT JOIN bench_keys k ON k.event_id = c.id AND k.n = x.n`, [after, limit]);
      const opened = rows.map(({ r, key }) => {
        const { $sealed, ...rest } = r as Rec & { $sealed: string };
        if (!key) return rest;
        const raw = Buffer.from($sealed, 'base64');
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
        decipher.setAuthTag(raw.subarray(12, 28));
        return { ...rest, ...JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) };
      });
      const res = await pool.query(`SELECT count(*)::int AS n, count(DISTINCT r->>'email')::int AS e FROM jsonb_array_elements($1::jsonb) r`, [JSON.stringify(opened)]);
      return res.rows[0].n;
    },
  },
];

async function main() {
  const db = await benchDatabase();
  const pool = createPool(db.url, { max: 8 });
  try {
    await runMigrations(pool, [POSTGRES_EVENT_STORE_MIGRATIONS]);
    await pool.query('CREATE EXTENSION IF NOT EXISTS pgcrypto');
    await pool.query(`CREATE TABLE bench_personal (event_id uuid, n int, data jsonb NOT NULL, PRIMARY KEY (event_id, n));
                      CREATE TABLE bench_personal_chunks (event_id uuid PRIMARY KEY, data jsonb NOT NULL);
                      CREATE TABLE bench_keys (event_id uuid, n int, key bytea NOT NULL, PRIMARY KEY (event_id, n))`);
    const store = new PostgresEventStore(pool);
    const accept = new Map<string, number[]>();
    const project = new Map<string, number[]>();
    const sizes = new Map<string, number>();
    for (let rep = 0; rep < REPS; rep++) {
      for (const v of rep % 2 === 0 ? variants : [...variants].reverse()) {
        const head = await store.headPosition();
        let t = process.hrtime.bigint();
        for (let c = 0; c < CHUNKS; c++) await v.accept(store, pool, chunks[c], rep, c);
        accept.set(v.name, [...(accept.get(v.name) ?? []), (CHUNKS * PER_CHUNK) / (Number(process.hrtime.bigint() - t) / 1e9)]);
        t = process.hrtime.bigint();
        let projected = 0;
        for (let after = head; projected < CHUNKS * PER_CHUNK; ) {
          projected += await v.project(pool, after, 20);
          after = Number((await pool.query(`SELECT position FROM mds_events WHERE position > $1 ORDER BY position OFFSET 19 LIMIT 1`, [after])).rows[0]?.position ?? Number.MAX_SAFE_INTEGER);
        }
        project.set(v.name, [...(project.get(v.name) ?? []), (CHUNKS * PER_CHUNK) / (Number(process.hrtime.bigint() - t) / 1e9)]);
        if (rep === 0) {
          const { rows } = await pool.query(`SELECT avg(length(data::text))::int AS b FROM mds_events WHERE position > $1`, [head]);
          sizes.set(v.name, rows[0].b);
        }
      }
    }
    const personalRow = (await pool.query(`SELECT avg(length(data::text))::int AS b FROM bench_personal`)).rows[0].b;
    console.log(`### Personal data in the log: forgettable payloads against crypto-shredding\n\n${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${db.serverVersion}; ${(CHUNKS * PER_CHUNK).toLocaleString('en')} customer records in chunks of ${PER_CHUNK}, median of ${REPS}. Accept: from parsed records to committed. Project: every record of pages of 20 chunks with its personal fields back, counted in SQL.\n`);
    console.log('| way | accept (records/s) | × today | project (records/s) | × today | event JSON (bytes a chunk) |');
    console.log('|---|---:|---:|---:|---:|---:|');
    const base = variants[0].name;
    for (const v of variants) {
      const a = median(accept.get(v.name)!);
      const p = median(project.get(v.name)!);
      console.log(`| ${v.name} | ${Math.round(a).toLocaleString('en')} | ${(a / median(accept.get(base)!)).toFixed(2)} | ${Math.round(p).toLocaleString('en')} | ${(p / median(project.get(base)!)).toFixed(2)} | ${sizes.get(v.name)!.toLocaleString('en')} |`);
    }
    console.log(`\nA personal-data row: ${personalRow} bytes of JSON a record.\n`);
  } finally {
    await pool.end();
    await db.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
