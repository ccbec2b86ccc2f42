import { randomUUID } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { Pool } from 'pg';
import { openTestRuntime, type TestRuntime } from '#mds/testing/runtime';
import { eventually } from '#mds/testing/eventually';
import { EXPECTED_TALLY_SQL, tallyProjection } from '#mds/test-fixtures/tally/tally.projection';
import { streamsProjection } from '../streams/streams.projection';
import { createGeneration, getGeneration, listGenerations } from './catalog';
import { applyPage, openDedicatedClient, PersonalDataChanged, readPage } from './projection-runner';
import { waitForProjection, ProjectionTimeoutError } from './consistency';
import { Projector, projectionStatuses } from './projector';

async function appendTallied(rt: TestRuntime, streams: number, perStream: number): Promise<number> {
  let position = 0;
  for (let s = 0; s < streams; s++) {
    const r = await rt.store.append(`tally-${s}`, Array.from({ length: perStream }, () => ({ id: randomUUID(), type: 'Tallied', data: {} })));
    position = r.position;
  }
  return position;
}

async function tallyMatchesLog(rt: TestRuntime): Promise<void> {
  const expected = (await rt.pool.query(EXPECTED_TALLY_SQL)).rows;
  const actual = (await rt.pool.query('SELECT stream, events, position_sum, last_revision, last_position FROM tally ORDER BY stream')).rows;
  expect(actual).toEqual(expected);
}

describe('projection runtime', () => {
  let rt: TestRuntime;
  const projectors: Projector[] = [];

  beforeEach(async () => {
    rt = await openTestRuntime({ projections: [tallyProjection(), streamsProjection], env: { MDS_LEASE_RETRY_MS: '50', MDS_PROJECTION_BATCH_SIZE: '50' } });
  });
  afterEach(async () => {
    await Promise.all(projectors.splice(0).map((p) => p.stop()));
    await rt.close();
  });

  function projector(): Projector {
    const p = new Projector(rt.runnerDeps(), rt.projections);
    projectors.push(p);
    return p;
  }

  it('builds read models from the log, writing each checkpoint with its batch, and reports lag', async () => {
    const position = await appendTallied(rt, 5, 30);
    await rt.store.append('noise-1', [{ type: 'Ignored', data: {} }]);
    let statuses = await projectionStatuses(rt.pool, rt.store, rt.projections);
    expect(statuses.map((s) => [s.name, s.checkpoint, s.lag])).toEqual([
      ['tally', 0, 151],
      ['streams', 0, 151],
    ]);
    await projector().start();
    await waitForProjection(rt.pool, 'tally', position, { notifications: rt.notifications });
    await tallyMatchesLog(rt);
    // A projection that ignores an event still moves past it, so waiting on its position ends.
    await waitForProjection(rt.pool, 'tally', position + 1, { notifications: rt.notifications, timeoutMs: 5000 });
    await eventually(async () => {
      statuses = await projectionStatuses(rt.pool, rt.store, rt.projections);
      return statuses.every((s) => s.lag === 0);
    });
    const streams = (await rt.pool.query(`SELECT stream, category, revision, event_count FROM streams ORDER BY stream`)).rows;
    expect(streams[0]).toEqual({ stream: 'noise-1', category: 'noise', revision: 0, event_count: 1 });
    expect(streams.filter((r) => r.category === 'tally').every((r) => r.event_count === 30 && r.revision === 29)).toBe(true);
  });

  it('commits a page with its checkpoint only while the checkpoint is where the page was read from', async () => {
    const position = await appendTallied(rt, 2, 3);
    const tally = rt.projections[0];
    const gen = await createGeneration(rt.pool, tally, { onlyIfNone: true });
    const client = await openDedicatedClient(rt.runnerDeps(), 'test', { derivedState: true });
    try {
      const page = await readPage(rt.store, tally, 0, 50);
      expect(page.position).toBe(position);
      // Another runner moved the checkpoint meanwhile: the page's rows roll back with the failed compare-and-set.
      expect(await applyPage(client, tally, { ...gen, checkpoint: 2 }, page)).toBe(false);
      expect((await rt.pool.query('SELECT count(*)::int AS n FROM tally')).rows[0].n).toBe(0);
      expect((await getGeneration(rt.pool, 'tally', gen.generation))!.checkpoint).toBe(0);
      // The connection is out of the failed transaction, and the page applies from the right checkpoint.
      expect(await applyPage(client, tally, gen, page)).toBe(true);
      expect(gen.checkpoint).toBe(position);
      expect((await getGeneration(rt.pool, 'tally', gen.generation))!.checkpoint).toBe(position);
      await tallyMatchesLog(rt);
    } finally {
      await client.end();
    }
  });

  it('commits nothing of a page read before a forgetting rewrote personal data, and says so', async () => {
    const position = await appendTallied(rt, 2, 3);
    const tally = rt.projections[0];
    const gen = await createGeneration(rt.pool, tally, { onlyIfNone: true });
    const client = await openDedicatedClient(rt.runnerDeps(), 'test', { derivedState: true });
    try {
      const { rows } = await rt.pool.query<{ epoch: string }>('SELECT epoch FROM mds_personal_epoch');
      const page = { ...(await readPage(rt.store, tally, 0, 50)), personalEpoch: Number(rows[0].epoch) };
      await rt.pool.query('BEGIN; SELECT mds_personal_erasure_begin(); COMMIT');
      await expect(applyPage(client, tally, gen, page)).rejects.toBeInstanceOf(PersonalDataChanged);
      expect((await rt.pool.query('SELECT count(*)::int AS n FROM tally')).rows[0].n).toBe(0);
      expect((await getGeneration(rt.pool, 'tally', gen.generation))!.checkpoint).toBe(0);
      // Read again after it, the page applies.
      expect(await applyPage(client, tally, gen, { ...page, personalEpoch: Number(rows[0].epoch) + 1 })).toBe(true);
      expect((await getGeneration(rt.pool, 'tally', gen.generation))!.checkpoint).toBe(position);
    } finally {
      await client.end();
    }
  });

  it('reads once per append when it keeps up: a page short of the limit reached the head, so no read follows to find nothing', async () => {
    let reads = 0;
    const deps = rt.runnerDeps();
    const store = Object.create(deps.store) as typeof deps.store;
    store.readAll = (options) => (reads++, deps.store.readAll(options));
    // No idle read (the safety net for lost announcements) during the test, however slow the machine.
    const p = new Projector({ ...deps, store, idleMs: 60_000 }, [tallyProjection()]);
    projectors.push(p);
    await p.start();
    await waitForProjection(rt.pool, 'tally', await rt.store.headPosition());
    reads = 0;
    for (let i = 0; i < 10; i++) {
      const { position } = await rt.store.append(`tally-${i}`, [{ type: 'Tallied', data: {} }]);
      await waitForProjection(rt.pool, 'tally', position);
    }
    await tallyMatchesLog(rt);
    // One read per append; reading again after each page would make it twenty.
    expect(reads).toBeGreaterThanOrEqual(10);
    expect(reads).toBeLessThanOrEqual(12);
  });

  it('creates or finds a generation on a single connection: it never waits for a second while holding one', async () => {
    // With a pool of one, holding the connection while reading the generation back would wait until the connect timeout.
    const one = new Pool({ connectionString: rt.databaseUrl, max: 1, connectionTimeoutMillis: 2000 });
    try {
      const created = await createGeneration(one, rt.projections[0], { onlyIfNone: true });
      const found = await createGeneration(one, rt.projections[0], { onlyIfNone: true });
      expect([created.state, found.generation]).toEqual(['live', created.generation]);
    } finally {
      await one.end();
    }
  });

  it('times out a wait for a position the projection has not reached', async () => {
    await expect(waitForProjection(rt.pool, 'tally', 10, { timeoutMs: 100 })).rejects.toBeInstanceOf(ProjectionTimeoutError);
  });

  it('wakes on an announcement that arrives while it looks at the checkpoint, not at the next poll', async () => {
    const gen = await createGeneration(rt.pool, rt.projections[0], { onlyIfNone: true });
    const announced = () => new Promise<void>((resolve) => {
      const on = (payload: string) => payload === 'tally:7' && (rt.notifications.off('mds_checkpoints', on), resolve());
      rt.notifications.on('mds_checkpoints', on);
    });
    // Its first look reads the checkpoint before it moves, and answers only once the move is announced.
    let looks = 0;
    const pool = {
      query: async (sql: string, params: unknown[]) => {
        const result = await rt.pool.query(sql, params);
        if (looks++ === 0) {
          const heard = announced();
          await rt.pool.query('SELECT mds_move_checkpoint($1, $2, $3, $4)', ['tally', gen.generation, gen.checkpoint, 7]);
          await heard;
        }
        return result;
      },
    };
    // A poll far longer than the wait allowed: only the announcement can end it in time.
    const waited = waitForProjection(pool as never, 'tally', 7, { notifications: rt.notifications, pollMs: 120_000, timeoutMs: 120_000 }).then(() => 'woken');
    const stuck = new Promise((resolve) => setTimeout(() => resolve('left to the poll'), 10_000));
    expect(await Promise.race([waited, stuck])).toBe('woken');
    expect(looks).toBe(2);
  });

  it('applies each projection in exactly one of two projector processes, and fails over when it stops', async () => {
    const a = projector();
    const b = projector();
    await a.start();
    await b.start();
    await eventually(() => a.held().length + b.held().length === 2);
    expect([...a.held(), ...b.held()].sort()).toEqual(['streams', 'tally']);
    const first = await appendTallied(rt, 4, 25);
    await waitForProjection(rt.pool, 'tally', first);
    const holder = a.held().includes('tally') ? a : b;
    const standby = holder === a ? b : a;
    await holder.stop();
    await eventually(() => standby.held().includes('tally'));
    const second = await appendTallied(rt, 4, 25);
    await waitForProjection(rt.pool, 'tally', second, { notifications: rt.notifications });
    await tallyMatchesLog(rt);
    expect((await rt.pool.query('SELECT sum(events)::int AS n FROM tally')).rows[0].n).toBe(200);
  });

  it('keeps no listener per lease retry: a standby projector waits for days', async () => {
    const a = projector();
    const b = projector();
    await a.start();
    await eventually(() => a.held().length === 2);
    await b.start();
    // Lease retries every 50 ms: 20 of them, each a sleep on the worker's abort signal.
    await new Promise((r) => setTimeout(r, 1000));
    const workers = (b as unknown as { workers: Array<{ abort: AbortController }> }).workers;
    expect(workers.length).toBe(2);
    for (const w of workers) expect(getEventListeners(w.abort.signal, 'abort').length).toBeLessThanOrEqual(1);
  });

  it('rebuilds beside the live generation when the projection version changes, then switches', async () => {
    await appendTallied(rt, 3, 40);
    const v1 = projector();
    await v1.start();
    await eventually(async () => (await projectionStatuses(rt.pool, rt.store, rt.projections)).every((s) => s.lag === 0));
    await v1.stop();
    projectors.length = 0;

    const v2 = new Projector(rt.runnerDeps(), [tallyProjection(2), streamsProjection]);
    projectors.push(v2);
    await v2.start();
    await eventually(async () => {
      const live = (await listGenerations(rt.pool)).find((g) => g.name === 'tally' && g.state === 'live');
      return live?.version === 2;
    });
    const position = await appendTallied(rt, 2, 10);
    await waitForProjection(rt.pool, 'tally', position);
    await tallyMatchesLog(rt);
    // The retired generation's schema is dropped once nothing serves from it.
    await eventually(async () => (await listGenerations(rt.pool)).filter((g) => g.name === 'tally').length === 1);
    const schemas = (await rt.pool.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'p_tally_%' ORDER BY 1`)).rows.map((r) => r.nspname);
    expect(schemas).toEqual(['p_tally_2']);

    // An older release that gets the lease (a rolling deploy) must not apply its logic to v2 tables.
    await v2.stop();
    projectors.length = 0;
    const old = new Projector(rt.runnerDeps(), [tallyProjection(1), streamsProjection]);
    projectors.push(old);
    await old.start();
    await eventually(() => old.held().includes('tally'));
    const checkpoint = (await listGenerations(rt.pool)).find((g) => g.name === 'tally')!.checkpoint;
    await appendTallied(rt, 1, 5);
    await eventually(() => rt.logLines.some((l) => l.includes('live projection is newer than this code')));
    await new Promise((r) => setTimeout(r, 300));
    expect((await listGenerations(rt.pool)).find((g) => g.name === 'tally')!.checkpoint).toBe(checkpoint);
  });
});
