import { Client, type QueryResult } from 'pg';
import { createTestDatabase, type TestDatabase } from '#mds/testing/database';
import { queryByIndex, type ProjectionTx } from './projection';

// A page's temporary table joined with a large read model must be joined by index: a hash join would
// read the whole read model for every page (a rebuild of N records then costs N² / page size).
describe('queryByIndex', () => {
  let db: TestDatabase;
  let client: Client;
  const plans: string[] = [];
  let tx: ProjectionTx;

  beforeAll(async () => {
    db = await createTestDatabase();
    client = new Client({ connectionString: db.url });
    await client.connect();
    await client.query(`CREATE TABLE model (id bigint PRIMARY KEY, v text NOT NULL);
      INSERT INTO model SELECT g, 'v' || g FROM generate_series(1, 200000) g; ANALYZE model`);
    const query = async (sql: string, params?: unknown[]) => {
      const result = (await client.query(sql, params)) as unknown as QueryResult | QueryResult[];
      for (const r of Array.isArray(result) ? result : [result]) {
        if (r.rows?.[0] && 'QUERY PLAN' in r.rows[0]) plans.push(r.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n'));
      }
      return result;
    };
    tx = { query: query as unknown as ProjectionTx['query'], schema: 'public', position: 0 };
  });

  afterAll(async () => {
    await client.end();
    await db.drop();
  });

  beforeEach(async () => {
    plans.length = 0;
    await client.query(`BEGIN; CREATE TEMP TABLE page ON COMMIT DROP AS SELECT g * 7 AS target, 'new' AS v FROM generate_series(1, 20000) g`);
  });

  afterEach(async () => {
    await client.query('ROLLBACK');
  });

  it('updates a read model from a page by index probes, then restores the planner settings', async () => {
    await queryByIndex(tx, 'EXPLAIN UPDATE model m SET v = p.v FROM page p WHERE m.id = p.target');
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatch(/Nested Loop/);
    expect(plans[0]).toMatch(/Index Scan using model_pkey on model m/);
    expect(plans[0]).not.toMatch(/Seq Scan on model|Hash Join|Merge Join/);
    const { rows } = await client.query<{ enable_hashjoin: string }>('SHOW enable_hashjoin');
    expect(rows[0].enable_hashjoin).toBe('on');
  });

  it('does the same for a statement with parameters (three statements instead of one)', async () => {
    await queryByIndex(tx, 'EXPLAIN SELECT m.v FROM page p LEFT JOIN model m ON m.id = p.target WHERE p.v = $1', ['new']);
    expect(plans[0]).toMatch(/Index Scan using model_pkey on model m/);
    expect(plans[0]).not.toMatch(/Seq Scan on model|Hash/);
    const { rows } = await client.query<{ enable_mergejoin: string }>('SHOW enable_mergejoin');
    expect(rows[0].enable_mergejoin).toBe('on');
    // And the update it plans really applies.
    await queryByIndex(tx, 'UPDATE model m SET v = p.v FROM page p WHERE m.id = p.target AND p.v = $1', ['new']);
    const counted = await client.query<{ n: string }>(`SELECT count(*) AS n FROM model WHERE v = 'new'`);
    expect(Number(counted.rows[0].n)).toBe(20000);
  });
});
