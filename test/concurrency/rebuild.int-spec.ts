import { randomUUID } from 'node:crypto';
import { openTestRuntime, type TestRuntime } from '../support/runtime';
import { eventually } from '../support/eventually';
import { EXPECTED_TALLY_SQL, tallyProjection } from '../fixtures/tally/tally.projection';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listGenerations, Projector, rebuildProjection, waitForProjection, type Projection, type RebuildProgress } from '#mds/projections';

const TABLE_DUMP = `SELECT md5(string_agg(t::text, '|' ORDER BY stream)) AS digest, count(*)::int AS rows FROM tally t`;

describe('blue/green rebuild', () => {
  let rt: TestRuntime;
  let projector: Projector;

  beforeAll(async () => {
    rt = await openTestRuntime({ projections: [tallyProjection()], env: { MDS_PROJECTION_BATCH_SIZE: '500' } });
    for (let i = 0; i < 300; i++) {
      await rt.store.append(`tally-${i % 60}`, Array.from({ length: 100 }, () => ({ id: randomUUID(), type: 'Tallied', data: {} })));
    }
    projector = new Projector(rt.runnerDeps(), rt.projections);
    await projector.start();
    await waitForProjection(rt.pool, 'tally', await rt.store.headPosition(), { timeoutMs: 60_000 });
  });
  afterAll(async () => {
    await projector?.stop();
    await rt?.close();
  });

  it('gives an identical read model while reads and writes continue, and reads never fail during the switch', async () => {
    const before = (await rt.pool.query(TABLE_DUMP)).rows[0];
    let stop = false;
    const failures: string[] = [];
    let reads = 0;
    let wentBack = 0;
    const readers = Array.from({ length: 3 }, async () => {
      // Each reader's reads are sequential, so what it sees must never go backwards.
      let lastTotal = 0;
      while (!stop) {
        try {
          const { rows } = await rt.pool.query('SELECT count(*)::int AS streams, coalesce(sum(events), 0)::int AS total FROM tally');
          if (rows[0].total < lastTotal) wentBack++;
          lastTotal = Math.max(lastTotal, rows[0].total);
          reads++;
        } catch (err) {
          failures.push((err as Error).message);
        }
      }
    });
    let writes = 0;
    const writer = (async () => {
      while (!stop) {
        await rt.store.append(`tally-new-${writes % 7}`, [{ id: randomUUID(), type: 'Tallied', data: {} }]);
        writes++;
        await new Promise((r) => setTimeout(r, 5));
      }
    })();

    const progress: RebuildProgress[] = [];
    const result = await rebuildProjection(rt.runnerDeps(), tallyProjection(), { onProgress: (p) => progress.push(p) });
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all([...readers, writer]);

    expect(failures).toEqual([]);
    expect(reads).toBeGreaterThan(50);
    expect(wentBack).toBe(0);
    expect(writes).toBeGreaterThan(5);
    expect(result.generation).toBe(2);
    expect(result.retired).toBe(1);
    expect(result.events).toBeGreaterThanOrEqual(30_000);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[progress.length - 1].position).toBe(progress[progress.length - 1].head);
    expect(progress.some((p) => p.eventsPerSecond > 0)).toBe(true);

    await waitForProjection(rt.pool, 'tally', await rt.store.headPosition());
    const expected = (await rt.pool.query(EXPECTED_TALLY_SQL)).rows;
    const actual = (await rt.pool.query('SELECT stream, events, position_sum, last_revision, last_position FROM tally ORDER BY stream')).rows;
    expect(actual).toEqual(expected);
    expect(before.rows).toBe(60);
    const live = (await listGenerations(rt.pool)).filter((g) => g.name === 'tally');
    expect(live.map((g) => [g.generation, g.state])).toEqual([[2, 'live']]);
  }, 120_000);

  it('replays deterministically: a rebuild without new events gives byte-identical tables', async () => {
    await waitForProjection(rt.pool, 'tally', await rt.store.headPosition());
    const before = (await rt.pool.query(TABLE_DUMP)).rows[0];
    const result = await rebuildProjection(rt.runnerDeps(), tallyProjection());
    await eventually(async () => (await listGenerations(rt.pool)).some((g) => g.generation === result.generation && g.state === 'live'));
    const after = (await rt.pool.query(TABLE_DUMP)).rows[0];
    expect(after).toEqual(before);
  }, 60_000);
});

describe('rebuild beside a running projector', () => {
  // A read model whose apply calls a function of its own schema (as customers calls customer_merge),
  // and can be held inside a page of the generation that serves, while a rebuild runs beside it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-gated-'));
  fs.writeFileSync(path.join(dir, '0001_gated.sql'), `CREATE TABLE gated (id int PRIMARY KEY, n int NOT NULL);
    CREATE FUNCTION gated_bump(n int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT n + 1 $$;`);
  let hold: { schema: string; entered: () => void; released: Promise<void> } | undefined;
  const gated: Projection = {
    name: 'gated',
    version: 1,
    eventTypes: ['Gated'],
    tables: ['gated'],
    migrationsDir: dir,
    async apply(events, tx) {
      if (hold && tx.schema === hold.schema) {
        hold.entered();
        await hold.released;
      }
      await tx.query(`INSERT INTO gated (id, n) VALUES (1, gated_bump($1 - 1)) ON CONFLICT (id) DO UPDATE SET n = gated_bump(gated.n) + $1 - 1`, [events.length]);
    },
  };

  it('never drops what the serving generation is applying: a page held across a rebuild commits, and nothing is logged as an error', async () => {
    const rt = await openTestRuntime({ projections: [gated] });
    const projector = new Projector(rt.runnerDeps(), rt.projections);
    await projector.start();
    try {
      await rt.store.append('gated-1', [{ type: 'Gated', data: {} }]);
      await waitForProjection(rt.pool, 'gated', await rt.store.headPosition());
      const live = (await listGenerations(rt.pool)).find((g) => g.name === 'gated' && g.state === 'live')!;
      let release!: () => void;
      let entered!: () => void;
      const inside = new Promise<void>((r) => (entered = r));
      hold = { schema: live.schemaName, entered, released: new Promise<void>((r) => (release = r)) };
      // The serving generation's runner is now inside a page, before its function is called.
      await rt.store.append('gated-1', [{ type: 'Gated', data: {} }]);
      await inside;
      const rebuilding = rebuildProjection(rt.runnerDeps(), gated);
      // Before, the rebuild switched and dropped the held generation's schema meanwhile (the page then
      // failed on a function that no longer existed); now it waits for the page.
      await Promise.race([rebuilding, new Promise((r) => setTimeout(r, 1000))]);
      release();
      hold = undefined;
      const result = await rebuilding;
      await rt.store.append('gated-1', [{ type: 'Gated', data: {} }]);
      await waitForProjection(rt.pool, 'gated', await rt.store.headPosition());
      expect(result.retired).toBe(live.generation);
      expect((await rt.pool.query('SELECT n FROM gated')).rows).toEqual([{ n: 3 }]);
      expect(rt.logLines.filter((l) => ['warn', 'error', 'fatal'].includes(JSON.parse(l).level))).toEqual([]);
    } finally {
      await projector.stop();
      await rt.close();
    }
  }, 60_000);

  it('lets a reader joining two views in its own order go first: the switch never deadlocks with it', async () => {
    const pairedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-paired-'));
    fs.writeFileSync(path.join(pairedDir, '0001_paired.sql'), 'CREATE TABLE paired_a (n int); CREATE TABLE paired_b (n int);');
    const paired: Projection = {
      name: 'paired',
      version: 1,
      eventTypes: ['Paired'],
      tables: ['paired_a', 'paired_b'],
      migrationsDir: pairedDir,
      async apply(events, tx) {
        await tx.query('INSERT INTO paired_a SELECT 1 FROM generate_series(1, $1)', [events.length]);
        await tx.query('INSERT INTO paired_b SELECT 2 FROM generate_series(1, $1)', [events.length]);
      },
    };
    const rt = await openTestRuntime({ projections: [paired] });
    const projector = new Projector(rt.runnerDeps(), rt.projections);
    await projector.start();
    const reader = await rt.pool.connect();
    try {
      await rt.store.append('paired-1', [{ type: 'Paired', data: {} }]);
      await waitForProjection(rt.pool, 'paired', await rt.store.headPosition());
      const live = (await listGenerations(rt.pool)).find((g) => g.name === 'paired' && g.state === 'live')!;
      // The reader holds the second view, in the order a join might take them.
      await reader.query('BEGIN');
      expect((await reader.query('SELECT count(*)::int AS n FROM paired_b')).rows).toEqual([{ n: 1 }]);
      const rebuilding = rebuildProjection(rt.runnerDeps(), paired);
      // Before, the switch had by now dropped the first view and waited for the second: the reader's
      // next read closed the cycle, and PostgreSQL ended one of the two with "deadlock detected".
      await Promise.race([rebuilding, new Promise((r) => setTimeout(r, 500))]);
      expect((await reader.query('SELECT count(*)::int AS n FROM paired_a')).rows).toEqual([{ n: 1 }]);
      await reader.query('COMMIT');
      const result = await rebuilding;
      expect(result.retired).toBe(live.generation);
      expect((await rt.pool.query('SELECT (SELECT count(*) FROM paired_a)::int AS a, (SELECT count(*) FROM paired_b)::int AS b')).rows).toEqual([{ a: 1, b: 1 }]);
      expect(rt.logLines.filter((l) => ['warn', 'error', 'fatal'].includes(JSON.parse(l).level))).toEqual([]);
    } finally {
      reader.release();
      await projector.stop();
      await rt.close();
    }
  }, 60_000);
});
