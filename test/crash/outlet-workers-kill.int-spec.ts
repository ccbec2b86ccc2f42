import type { ChildProcess } from 'node:child_process';
import { MAX_UNRECORDED_BATCHES } from '#mds/datatargets';
import { createDatatarget, createOutlet, deliveryOrder, lastDelivered, postMessages } from '../support/datatargets';
import { datasyncProjection, datatargetsProjection, waitForProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { startCli } from '../support/processes';
import { startReceiver } from '../support/receiver';
import { openProjectingRuntime, type TestRuntime } from '../support/runtime';

const OUTLETS = 4;
const MESSAGES = 2000;
const KILLS = 8;

type Worker = { child: ChildProcess; exited: Promise<number | null> };

// Fault test: two outlet worker processes share four outlets; one or the other is killed with
// SIGKILL eight times during delivery (and started again). Every outlet must get every message at
// least once and in order, and only batches in flight at a kill may be sent again (counted).
describe('two outlet workers killed in turn during delivery', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await openProjectingRuntime({ projections: [datatargetsProjection, datasyncProjection] });
  });
  afterAll(async () => {
    await rt?.close();
  });

  it('delivers every message of every outlet in order, sending again only what was in flight', async () => {
    const receiver = await startReceiver();
    receiver.setHandler(() => new Promise((r) => setTimeout(() => r(200), 1 + Math.random() * 4)));
    const meta = { actor: 'test' };
    const outlets: string[] = [];
    let position = 0;
    for (let o = 0; o < OUTLETS; o++) {
      const { datatarget_id: id } = await createDatatarget(rt.store, { datatarget_type: 'messages', name: `w${o}` }, meta);
      const { outlet_id: outletId } = await createOutlet(rt.store, rt.accessDeps.secrets, id, { outlet_type: 'webhook', max_batch_size: 20, request: { url: `${receiver.url}/${o}`, content: { items: '{(data)}' }, is_batched: true } }, meta);
      outlets.push(outletId);
      for (let i = 0; i < MESSAGES; i += 1000) ({ position } = await postMessages(rt.store, id, { messages: Array.from({ length: 1000 }, (_, j) => ({ o, n: i + j + 1 })) }, meta));
    }
    await waitForProjection(rt.pool, 'datatargets', position);
    const delivered = (outletId: string) => lastDelivered(rt.store, outletId);
    const env = { DATABASE_URL: rt.db.url, OUTLET_ALLOW_PRIVATE: 'true', OUTLET_POLL_MS: '20', LOG_LEVEL: 'error', MDS_SECRET_KEY: rt.config.secretKey };
    const workers: Worker[] = [startCli(['outlet-worker'], env), startCli(['outlet-worker'], env)];
    let kills = 0;
    try {
      while (kills < KILLS) {
        const before = receiver.received.length;
        await eventually(() => expect(receiver.received.length).toBeGreaterThan(before + 10), { timeoutMs: 60_000, intervalMs: 5 });
        const w = kills % 2;
        workers[w].child.kill('SIGKILL');
        await workers[w].exited;
        kills++;
        workers[w] = startCli(['outlet-worker'], env);
      }
      expect(Math.min(...(await Promise.all(outlets.map(delivered))))).toBeLessThan(MESSAGES); // the kills happened during delivery
      await eventually(async () => expect(await Promise.all(outlets.map(delivered))).toEqual(outlets.map(() => MESSAGES)), { timeoutMs: 180_000, intervalMs: 100 });
    } finally {
      for (const w of workers) w.child.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
      await receiver.close();
    }
    let duplicates = 0;
    for (let o = 0; o < OUTLETS; o++) {
      const batches = receiver.received.filter((r) => r.url === `/hook/${o}`).map((r) => (r.json.items as Array<{ n: number }>).map((m) => m.n));
      const order = deliveryOrder(batches);
      expect(order.outOfOrder).toEqual([]);
      expect(order.highest).toBe(MESSAGES);
      duplicates += order.duplicates;
      expect(new Set(batches.flat()).size).toBe(MESSAGES);
    }
    // A kill sends again at most the batches in flight for each outlet the killed worker owned.
    expect(duplicates).toBeLessThanOrEqual((MAX_UNRECORDED_BATCHES + 1) * OUTLETS * kills);
    console.log(`outlet workers: 2 workers, ${OUTLETS} outlets, ${kills} kills, ${receiver.received.length} requests, ${duplicates} batches sent again (${OUTLETS * MESSAGES} messages)`);
  }, 300_000);
});
