import type { ChildProcess } from 'node:child_process';
import { DELIVERY_ATTEMPTED, MAX_UNRECORDED_BATCHES, outletStream, type DeliveryAttempted } from '#mds/datatargets';
import { createDatatarget, createOutlet, deliveryOrder, lastDelivered, postMessages } from '../support/datatargets';
import { datasyncProjection, datatargetsProjection, waitForProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { startCli } from '../support/processes';
import { startReceiver } from '../support/receiver';
import { openProjectingRuntime, type TestRuntime } from '../support/runtime';

const OUTLETS = 4;
const MESSAGES = 4000;
const KILLS = 8;
const BATCH = 20;

type Worker = { child: ChildProcess; exited: Promise<number | null> };

// Fault test: two outlet worker processes share four outlets; one or the other is killed with
// SIGKILL eight times during delivery (and started again). Every outlet must get every message at
// least once and in order, and only batches in flight at a kill may be sent again (counted): a batch
// the receiver gets again is one whose attempt was not in the outlet's log when the worker died, at
// most MAX_UNRECORDED_BATCHES + 1 of them per outlet and kill. The other worker is held (SIGSTOP)
// from just before the kill until the logs are read, so they are read as the killed worker left them.
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
      const { outlet_id: outletId } = await createOutlet(rt.store, rt.accessDeps.secrets, id, { outlet_type: 'webhook', max_batch_size: BATCH, request: { url: `${receiver.url}/${o}`, content: { items: '{(data)}' }, is_batched: true } }, meta);
      outlets.push(outletId);
      for (let i = 0; i < MESSAGES; i += 1000) ({ position } = await postMessages(rt.store, id, { messages: Array.from({ length: 1000 }, (_, j) => ({ o, n: i + j + 1 })) }, meta));
    }
    await waitForProjection(rt.pool, 'datatargets', position);
    const delivered = (outletId: string) => lastDelivered(rt.store, outletId);
    const env = { DATABASE_URL: rt.db.url, OUTLET_ALLOW_PRIVATE: 'true', OUTLET_POLL_MS: '20', LOG_LEVEL: 'error', MDS_SECRET_KEY: rt.config.secretKey };
    const workers: Worker[] = [startCli(['outlet-worker'], env), startCli(['outlet-worker'], env)];
    // At each kill: how many requests the receiver had, and each outlet's last recorded message.
    const kills: Array<{ received: number; recorded: number[] }> = [];
    try {
      while (kills.length < KILLS) {
        const before = receiver.received.length;
        // Long enough for a worker to build up whatever it leaves unrecorded (batches take 1-5 ms).
        await eventually(() => expect(receiver.received.length).toBeGreaterThan(before + 50), { timeoutMs: 60_000, intervalMs: 5 });
        const w = kills.length % 2;
        const other = workers[1 - w].child;
        other.kill('SIGSTOP');
        try {
          workers[w].child.kill('SIGKILL');
          await workers[w].exited;
          kills.push({ received: receiver.received.length, recorded: await Promise.all(outlets.map(delivered)) });
          workers[w] = startCli(['outlet-worker'], env);
        } finally {
          other.kill('SIGCONT');
        }
      }
      expect(Math.min(...(await Promise.all(outlets.map(delivered))))).toBeLessThan(MESSAGES); // the kills happened during delivery
      await eventually(async () => expect(await Promise.all(outlets.map(delivered))).toEqual(outlets.map(() => MESSAGES)), { timeoutMs: 180_000, intervalMs: 100 });
    } finally {
      for (const w of workers) w.child.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
      await receiver.close();
    }
    let duplicates = 0;
    const perKill = kills.map(() => 0);
    let mostOfOne = 0;
    const unjustified: string[] = [];
    for (let o = 0; o < OUTLETS; o++) {
      const requests = receiver.received.map((r, i) => ({ i, r })).filter(({ r }) => r.url === `/hook/${o}`);
      const batches = requests.map(({ r }) => (r.json.items as Array<{ n: number }>).map((m) => m.n));
      const order = deliveryOrder(batches);
      expect(order.outOfOrder).toEqual([]);
      expect(order.highest).toBe(MESSAGES);
      duplicates += order.duplicates;
      expect(new Set(batches.flat()).size).toBe(MESSAGES);

      // The log: one attempt per batch, each OK, batch b carrying messages from BATCH·(b−1)+1.
      const attempts = (await rt.store.readStream(outletStream(outlets[o]))).filter((e) => e.type === DELIVERY_ATTEMPTED).map((e) => (e.data as DeliveryAttempted).entry);
      expect(attempts.map((a) => [a.batch_number, a.status, a.first_message_number])).toEqual(Array.from({ length: MESSAGES / BATCH }, (_, b) => [b + 1, 'OK', b * BATCH + 1]));

      // A batch received again must be one the last kill before it arrived found unrecorded (a
      // recorded batch is never sent again), and a kill sends at most 17 of an outlet's batches again.
      const seen = new Set<number>();
      const again = kills.map(() => new Set<number>());
      for (const [j, { i }] of requests.entries()) {
        const first = batches[j][0];
        if (!seen.has(first)) {
          seen.add(first);
          continue;
        }
        const k = kills.findLastIndex((kill) => kill.received <= i);
        if (k !== -1 && first > kills[k].recorded[o]) again[k].add(first);
        else unjustified.push(`outlet ${o}: messages ${first}-${batches[j].at(-1)} received again after ${k === -1 ? 'no kill' : `kill ${k + 1}, which found up to ${kills[k].recorded[o]} recorded`}`);
      }
      again.forEach((sentAgain, k) => {
        if (sentAgain.size > MAX_UNRECORDED_BATCHES + 1) unjustified.push(`outlet ${o}: ${sentAgain.size} batches sent again after kill ${k + 1}`);
        perKill[k] += sentAgain.size;
        mostOfOne = Math.max(mostOfOne, sentAgain.size);
      });
    }
    expect(unjustified).toEqual([]);
    console.log(
      `outlet workers: 2 workers, ${OUTLETS} outlets, ${kills.length} kills, ${receiver.received.length} requests, ${duplicates} batches sent again (${OUTLETS * MESSAGES} messages; per kill ${perKill.join(', ')}; at most ${mostOfOne} of one outlet at one kill), each unrecorded when its worker died`,
    );
  }, 300_000);
});
