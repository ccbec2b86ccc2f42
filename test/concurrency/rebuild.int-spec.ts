import { randomUUID } from 'node:crypto';
import { openTestRuntime, type TestRuntime } from '../support/runtime';
import { eventually } from '../support/eventually';
import { EXPECTED_TALLY_SQL, tallyProjection } from '../fixtures/tally/tally.projection';
import { listGenerations, Projector, rebuildProjection, waitForProjection, type RebuildProgress } from '#mds/projections';

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
