import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { openTestRuntime, type TestRuntime } from '../support/runtime';
import { eventually } from '../support/eventually';
import { EXPECTED_TALLY_SQL } from '../fixtures/tally/tally.projection';

const CHILD = path.resolve(__dirname, '../../dist/test/support/crash-projector.js');
const EVENTS = 20_000;

function startChild(url: string): ChildProcess {
  return spawn(process.execPath, [CHILD], {
    env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'error', MDS_PROJECTION_BATCH_SIZE: '50', MDS_LEASE_RETRY_MS: '50' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

async function checkpoint(pool: Pool): Promise<number> {
  const { rows } = await pool.query(`SELECT checkpoint FROM mds_projections WHERE name = 'tally' AND state = 'live'`);
  return rows[0]?.checkpoint ?? 0;
}

describe('projection crash safety', () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await openTestRuntime();
    // 20,000 events over 40 streams, in appends of 1 to 50 events, plus events the projection ignores.
    let written = 0;
    while (written < EVENTS) {
      const n = Math.min(EVENTS - written, 1 + Math.floor(Math.random() * 50));
      await rt.store.append(`tally-${written % 40}`, Array.from({ length: n }, () => ({ id: randomUUID(), type: 'Tallied', data: {} })));
      if (written % 7 === 0) await rt.store.append('noise-1', [{ type: 'Ignored', data: {} }]);
      written += n;
    }
  });
  afterAll(async () => {
    await rt?.close();
  });

  it('applies every event exactly once although the projector is killed with SIGKILL at random points', async () => {
    const head = await rt.store.headPosition();
    let kills = 0;
    const checkpointsAtKill: number[] = [];
    while (kills < 25) {
      const child = startChild(rt.db.url);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const before = await checkpoint(rt.pool);
      // Let it make some progress past where it restarted, then kill it at a random moment.
      await eventually(async () => (await checkpoint(rt.pool)) > before || (await checkpoint(rt.pool)) >= head, { timeoutMs: 30_000, intervalMs: 5 });
      // Short enough that 25 runs cannot reach the end of the 400 batches, random enough to hit
      // every phase of a batch (read, apply, checkpoint, commit).
      await new Promise((r) => setTimeout(r, Math.random() * 25));
      const at = await checkpoint(rt.pool);
      child.kill('SIGKILL');
      await exited;
      if (at >= head) break;
      kills++;
      checkpointsAtKill.push(at);
    }
    expect(kills).toBeGreaterThanOrEqual(10);
    // The kills landed at different points of the run, not all at the start or the end.
    expect(new Set(checkpointsAtKill).size).toBeGreaterThanOrEqual(5);
    expect(Math.max(...checkpointsAtKill)).toBeLessThan(head);

    const final = startChild(rt.db.url);
    try {
      await eventually(async () => (await checkpoint(rt.pool)) === head, { timeoutMs: 60_000, intervalMs: 20 });
    } finally {
      final.kill('SIGTERM');
      await new Promise((resolve) => final.once('exit', resolve));
    }
    const expected = (await rt.pool.query(EXPECTED_TALLY_SQL)).rows;
    const actual = (await rt.pool.query('SELECT stream, events, position_sum, last_revision, last_position FROM tally ORDER BY stream')).rows;
    expect(expected).toHaveLength(40);
    expect(actual).toEqual(expected);
    expect(actual.reduce((sum, r) => sum + Number(r.events), 0)).toBe(EVENTS);
  }, 240_000);
});
