import type { ChildProcess } from 'node:child_process';
import { ImportEventsCommand, ImportEventsHandler } from '#mds/activity';
import { ImportCustomersCommand, ImportCustomersHandler } from '#mds/customers';
import { customersProjection, rebuildProjection } from '#mds/projections';
import { dumpDatabase } from '../support/dump';
import { eventually } from '../support/eventually';
import { runCli, startCli } from '../support/processes';
import { openTestRuntime, type TestRuntime } from '../support/runtime';

const CUSTOMERS = 3000;
const FORGOTTEN = 600;

/**
 * A forgetting interrupted by kill -9 of the projector in the middle of its erasure (seen in
 * pg_stat_activity) either completed or completes when the projector runs again: the erasure is
 * part of the customers projection's transaction.
 */
describe('forgetting survives kill -9 of the projector during the erasure', () => {
  let rt: TestRuntime;
  let env: Record<string, string>;

  beforeAll(async () => {
    rt = await openTestRuntime();
    env = { DATABASE_URL: rt.db.url, MDS_SECRET_KEY: rt.config.secretKey ?? '', LOG_LEVEL: 'error', MDS_LEASE_RETRY_MS: '50' };
    const customers = Array.from({ length: CUSTOMERS }, (_, i) => ({ external_id: `K${i}`, email: `crash.person${i}@example.com`, first_name: `Firstname${i}x`, last_name: `Surname${i}x` }));
    for (let i = 0; i < CUSTOMERS; i += 1000) {
      await new ImportCustomersHandler(rt.store).execute(new ImportCustomersCommand({ records: customers.slice(i, i + 1000), atomic: true, caller: 'test' }));
    }
    const events = Array.from({ length: CUSTOMERS }, (_, i) => ({ type: 'BROWSE', date: '2026-03-01T10:00:00Z', email: `crash.person${i}@example.com`, path: `/p${i}` }));
        for (let i = 0; i < CUSTOMERS; i += 1000) {
      await new ImportEventsHandler(rt.store, async () => new Set<number>(), async () => new Set<string>()).execute(new ImportEventsCommand({ records: events.slice(i, i + 1000), atomic: true, caller: 'test' }));
    }
  });
  afterAll(async () => {
    await rt?.close();
  });

  const checkpoint = async (name: string) => Number((await rt.pool.query(`SELECT checkpoint FROM mds_projections WHERE name = $1 AND state = 'live'`, [name])).rows[0]?.checkpoint ?? 0);
  const erasing = async () => (await rt.pool.query(`SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%mds_personal_redact%' AND pid <> pg_backend_pid()`)).rows.length > 0;
  const stop = async (p: { child: ChildProcess; exited: Promise<number | null> }, signal: NodeJS.Signals) => {
    p.child.kill(signal);
    await p.exited;
  };

  it('forgets every one of them once the projector runs again, and nothing of them stays', async () => {
    let projector = startCli(['projector'], env);
    const head = await rt.store.headPosition();
    await eventually(async () => expect(await checkpoint('events')).toBeGreaterThanOrEqual(head), { timeoutMs: 120_000, intervalMs: 50 });
    await eventually(async () => expect(await checkpoint('customers')).toBeGreaterThanOrEqual(head), { timeoutMs: 120_000, intervalMs: 50 });
    await stop(projector, 'SIGKILL');
    // The forgetting is appended while no projector runs; each start is killed as soon as its erasure is seen running.
    const forget = Array.from({ length: FORGOTTEN }, (_, i) => ({ email: `crash.person${i}@example.com`, is_forgotten: true }));
    await new ImportCustomersHandler(rt.store).execute(new ImportCustomersCommand({ records: forget, atomic: true, caller: 'test' }));
    const forgetAt = await rt.store.headPosition();
    let interrupted = 0;
    for (let attempt = 0; attempt < 3; attempt++) {
      projector = startCli(['projector'], env);
      const seen = await eventually(async () => {
        if (await erasing()) return 'erasing';
        if ((await checkpoint('customers')) >= forgetAt) return 'done';
        throw new Error('not yet');
      }, { timeoutMs: 120_000, intervalMs: 1 });
      await stop(projector, 'SIGKILL');
      if (seen === 'done') break;
      expect(await checkpoint('customers')).toBeLessThan(forgetAt); // killed inside the transaction: nothing of it stayed
      interrupted++;
    }
    console.log(`forget crash: ${interrupted} kills during the erasure of ${FORGOTTEN} customers`);
    expect(interrupted).toBeGreaterThanOrEqual(1);
    projector = startCli(['projector'], env);
    try {
      await eventually(async () => expect(await checkpoint('customers')).toBeGreaterThanOrEqual(forgetAt), { timeoutMs: 120_000, intervalMs: 50 });
      // Run again, it finds nothing left to forget.
      const again = await runCli(['customers', 'forget', 'crash.person7@example.com'], env);
      expect([again.code, again.stdout]).toEqual([0, expect.stringMatching(/^no customer has that e-mail now/)]);
    } finally {
      await stop(projector, 'SIGTERM');
    }
    const forgotten = Number((await rt.pool.query(`SELECT count(*) FROM customers WHERE is_forgotten`)).rows[0].count);
    expect(forgotten).toBe(FORGOTTEN);
    const { text } = await dumpDatabase(rt.db.url);
    // Every one of them gone, every other one whole ("…1x" and "…1@" are not in "…10x" and "…10@").
    const values = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k).flatMap((i) => [`crash.person${i}@`, `Firstname${i}x`, `Surname${i}x`]);
    expect(values(0, FORGOTTEN).filter((v) => text.includes(v))).toEqual([]);
    const others = values(FORGOTTEN, CUSTOMERS);
    expect(others.filter((v) => text.includes(v))).toHaveLength(others.length);
    // The same as forgetting them without a kill: a rebuild from the log (and the rewritten lists) gives these customers.
    const rows = async () => (await rt.pool.query(`SELECT c::text AS row FROM customers c ORDER BY customer_id`)).rows.map((r) => r.row);
    const live = await rows();
    await rebuildProjection(rt.runnerDeps(), customersProjection);
    expect(await rows()).toEqual(live);
  }, 300_000);
});
