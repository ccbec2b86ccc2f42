import type { ChildProcess } from 'node:child_process';
import { MAX_UNRECORDED_BATCHES } from '#mds/datatargets';
import { createDatatarget, createOutlet, deliveryOrder, lastDelivered, postMessages } from '../support/datatargets';
import { datasyncProjection, datatargetsProjection, waitForProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { startCli } from '../support/processes';
import { startReceiver } from '../support/receiver';
import { openProjectingRuntime, type TestRuntime } from '../support/runtime';

const MESSAGES = 10_000;
const KILLS = 10;

describe('outlet worker crash safety', () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await openProjectingRuntime({ projections: [datatargetsProjection, datasyncProjection] });
  });
  afterAll(async () => {
    await rt?.close();
  });

  it('delivers every message at least once and in order although the worker is killed with SIGKILL during delivery', async () => {
    // A receiver that takes a few ms per batch, so kills land while a request is in flight.
    const receiver = await startReceiver();
    receiver.setHandler(() => new Promise((r) => setTimeout(() => r(200), 2 + Math.random() * 8)));
    const meta = { actor: 'test' };
    const { datatarget_id: id } = await createDatatarget(rt.store, { datatarget_type: 'messages', name: 'crash' }, meta);
    const { outlet_id: outletId } = await createOutlet(rt.store, rt.accessDeps.secrets, id, { outlet_type: 'webhook', request: { url: receiver.url, content: { items: '{(data)}' }, is_batched: true } }, meta);
    let position = 0;
    for (let i = 0; i < MESSAGES; i += 1000) {
      ({ position } = await postMessages(rt.store, id, { messages: Array.from({ length: 1000 }, (_, j) => ({ n: i + j + 1 })) }, meta));
    }
    await waitForProjection(rt.pool, 'datatargets', position);
    const delivered = () => lastDelivered(rt.store, outletId);
    const env = { DATABASE_URL: rt.db.url, OUTLET_ALLOW_PRIVATE: 'true', OUTLET_POLL_MS: '20', LOG_LEVEL: 'error', MDS_SECRET_KEY: rt.config.secretKey };
    const start = () => startCli(['outlet-worker'], env);
    let kills = 0;
    let child: { child: ChildProcess; exited: Promise<number | null> } | undefined;
    try {
      while (kills < KILLS) {
        child = start();
        const before = receiver.received.length;
        await eventually(() => expect(receiver.received.length).toBeGreaterThan(before), { timeoutMs: 60_000, intervalMs: 5 });
        await new Promise((r) => setTimeout(r, Math.random() * 30));
        child.child.kill('SIGKILL');
        await child.exited;
        kills++;
      }
      expect(await delivered()).toBeLessThan(MESSAGES); // the kills happened during delivery
      child = start();
      await eventually(async () => expect(await delivered()).toBe(MESSAGES), { timeoutMs: 120_000, intervalMs: 50 });
    } finally {
      child?.child.kill('SIGKILL');
      await child?.exited;
      await receiver.close();
    }
    const batches = receiver.received.map((r) => (r.json.items as Array<{ n: number }>).map((m) => m.n));
    const { outOfOrder, highest, duplicates } = deliveryOrder(batches);
    expect(outOfOrder).toEqual([]);
    expect(highest).toBe(MESSAGES);
    expect(new Set(batches.flat()).size).toBe(MESSAGES);
    // Only batches in flight at a kill are sent again: the one being sent and those not yet recorded.
    expect(duplicates).toBeLessThanOrEqual((MAX_UNRECORDED_BATCHES + 1) * kills);
    console.log(`outlet crash: ${kills} kills, ${batches.length} requests, ${duplicates} batches sent again`);
  });
});
