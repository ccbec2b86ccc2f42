import * as fs from 'node:fs';
import * as path from 'node:path';
import { createPool } from '#mds/platform';
import { createTestDatabase, type TestDatabase } from '#mds/testing/database';
import { KEY_ORDER_PLAN, OUTLET_LOG_TOTAL_SQL, outletLog, READ_MESSAGES_SQL, readMessages } from './datatargets.queries';

/** Every node of an `EXPLAIN (ANALYZE, FORMAT JSON)` answer, with the rows it passed up. */
function planNodes(rows: Array<{ 'QUERY PLAN': Array<{ Plan: unknown }> }>): Array<{ type: string; rows: number }> {
  const nodes: Array<{ type: string; rows: number }> = [];
  const walk = (n: { 'Node Type': string; 'Actual Rows': number; Plans?: unknown[] }) => {
    nodes.push({ type: n['Node Type'], rows: n['Actual Rows'] });
    for (const child of n.Plans ?? []) walk(child as typeof n);
  };
  walk(rows[0]['QUERY PLAN'][0].Plan as Parameters<typeof walk>[0]);
  return nodes;
}

const migration = (dir: string) => fs.readFileSync(path.join(__dirname, '..', dir, 'migrations', `0001_${dir}.sql`), 'utf8');

// The outlet worker reads a datatarget's messages 1,000 at a time, and the API pages outlet logs; over a
// long backlog or log this must cost the rows read, not all of them (the tables here have no
// statistics, as after a large post or many attempts).
describe('page reads of messages and outlet logs', () => {
  let db: TestDatabase;
  let pool: ReturnType<typeof createPool>;
  const BACKLOG = 30_000;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url, { max: 2 });
    await pool.query(migration('datatargets'));
    await pool.query(migration('datasync'));
    // No ANALYZE during the test: the plan must not depend on statistics.
    await pool.query('ALTER TABLE datatarget_messages SET (autovacuum_enabled = false); ALTER TABLE datasync_messages SET (autovacuum_enabled = false); ALTER TABLE outlet_log SET (autovacuum_enabled = false)');
    await pool.query(
      `INSERT INTO datatarget_messages (datatarget_id, message_number, message)
       SELECT 'dt_' || (n % 3), n / 3 + 1, jsonb_build_object('order', n, 'lines', jsonb_build_array(n, n + 1)) FROM generate_series(0, $1 * 3 - 1) n`,
      [BACKLOG],
    );
    await pool.query(
      `INSERT INTO outlet_log (outlet_id, entry_number, entry) SELECT 'ol_' || (n % 2), n / 2 + 1, jsonb_build_object('entry_number', n / 2 + 1) FROM generate_series(0, $1 * 2 - 1) n`,
      [BACKLOG],
    );
    await pool.query(`INSERT INTO datasync_messages (datatarget_id, message_number, message, after_update) SELECT 'dt_sync', n, jsonb_build_object('n', n), (100 + n)::text FROM generate_series(1, 50) n`);
  });

  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  it("gives the messages after a number, in order, up to the limit, and a datasync change's position", async () => {
    const rows = await readMessages(pool, 'dt_1', 20_000, 1000);
    expect(rows.map((r) => Number(r.number))).toEqual(Array.from({ length: 1000 }, (_, i) => 20_001 + i));
    expect(rows[0]).toEqual({ number: expect.anything(), message: { order: 60_001, lines: [60_001, 60_002] }, after_update: null });
    expect((await readMessages(pool, 'dt_1', BACKLOG - 2, 1000)).map((r) => Number(r.number))).toEqual([BACKLOG - 1, BACKLOG]);
    expect(await readMessages(pool, 'dt_1', BACKLOG, 1000)).toEqual([]);
    const sync = await readMessages(pool, 'dt_sync', 48, 10);
    expect(sync.map((r) => [Number(r.number), r.message, r.after_update])).toEqual([
      [49, { n: 49 }, '149'],
      [50, { n: 50 }, '150'],
    ]);
  });

  it('walks the primary key in order instead of collecting and sorting the backlog', async () => {
    const plan = async (settings?: string) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        if (settings) await client.query(settings);
        const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${READ_MESSAGES_SQL}`, ['dt_2', 1000, 1000]);
        await client.query('ROLLBACK');
        return planNodes(rows);
      } finally {
        client.release();
      }
    };
    const guarded = await plan(KEY_ORDER_PLAN);
    expect(guarded.map((n) => n.type)).not.toContain('Sort');
    // No node touches more rows than the limit (the unguarded plan reads the 29,000 after the number).
    expect(Math.max(...guarded.map((n) => n.rows))).toBeLessThanOrEqual(1000);
    // What the settings prevent: without statistics the planner guesses a few rows and sorts the whole backlog.
    const unguarded = await plan();
    expect(Math.max(...unguarded.map((n) => n.rows))).toBeGreaterThan(20_000);
  });

  it('pages through a long outlet log either way from an entry, with its total', async () => {
    const numbers = (page: Awaited<ReturnType<typeof outletLog>>) => page.entries.map((e) => e.entry_number);
    const up = await outletLog(pool, 'ol_1', { limit: 3, from: 100, order: 'ascending' });
    expect(numbers(up)).toEqual([100, 101, 102]);
    expect(up.total).toBe(BACKLOG);
    expect(numbers(await outletLog(pool, 'ol_1', { limit: 3, from: 100, order: 'descending' }))).toEqual([100, 99, 98]);
    expect(numbers(await outletLog(pool, 'ol_0', { limit: 2, order: 'descending' }))).toEqual([BACKLOG, BACKLOG - 1]);
    const none = await outletLog(pool, 'ol_none', { limit: 3, order: 'descending' });
    expect([none.total, none.entries]).toEqual([0, []]);
  });

  it("takes an outlet log's total from its last entry, not by counting every entry", async () => {
    const { rows } = await pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${OUTLET_LOG_TOTAL_SQL}`, ['ol_1']);
    // count(*) would pass all 30,000 entries of the outlet up the plan.
    expect(Math.max(...planNodes(rows).map((n) => n.rows))).toBe(1);
    expect((await pool.query(OUTLET_LOG_TOTAL_SQL, ['ol_1'])).rows[0].n).toBe(BACKLOG);
  });
});
