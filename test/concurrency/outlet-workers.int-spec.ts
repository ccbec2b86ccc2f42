import { Client } from 'pg';
import { DeliveryWorker } from '#mds/outlet-worker';
import { createDatatarget, createOutlet, lastDelivered, postMessages } from '../support/datatargets';
import { datasyncProjection, datatargetsProjection, waitForProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { startCli } from '../support/processes';
import { startReceiver } from '../support/receiver';
import { openProjectingRuntime, type TestRuntime } from '../support/runtime';

describe('two outlet workers on one database', () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await openProjectingRuntime({ projections: [datatargetsProjection, datasyncProjection], env: { OUTLET_ALLOW_PRIVATE: 'true', OUTLET_POLL_MS: '20' } });
  });
  afterAll(async () => {
    await rt?.close();
  });

  it('takes a new outlet as its creation is announced, not at the next poll', async () => {
    const receiver = await startReceiver();
    // A poll interval longer than the wait below: only the announcement can start the delivery.
    const worker = new DeliveryWorker(rt, { ...rt.config.outlets, pollMs: 60_000 }, rt.logger);
    try {
      const meta = { actor: 'test' };
      const { datatarget_id: id } = await createDatatarget(rt.store, { datatarget_type: 'messages', name: 'announced' }, meta);
      await waitForProjection(rt.pool, 'datatargets', (await postMessages(rt.store, id, { messages: [{ n: 1 }, { n: 2 }] }, meta)).position);
      await worker.start();
      // The worker looks once at its start (one query) and finds nothing to deliver; then the outlet comes.
      await new Promise((r) => setTimeout(r, 300));
      await createOutlet(rt.store, rt.accessDeps.secrets, id, { outlet_type: 'webhook', request: { url: `${receiver.url}/announced`, content: '{(data)}', is_batched: true } }, meta);
      await eventually(() => expect(worker.delivered).toBe(2), { timeoutMs: 15_000 });
      expect(receiver.received.filter((r) => r.url === '/hook/announced').flatMap((r) => r.json.map((m: { n: number }) => m.n))).toEqual([1, 2]);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  it('waits on a dozen idle outlets without Node calling it a listener leak', async () => {
    // Each owned outlet waits on the worker's stop signal; past ten, Node printed a leak warning. Node
    // writes it to the process's stderr, so the worker runs as `mds outlet-worker`.
    const receiver = await startReceiver();
    const meta = { actor: 'test' };
    const outlets: string[] = [];
    for (let o = 0; o < 12; o++) {
      const { datatarget_id: id } = await createDatatarget(rt.store, { datatarget_type: 'messages', name: `idle${o}` }, meta);
      outlets.push((await createOutlet(rt.store, rt.accessDeps.secrets, id, { outlet_type: 'webhook', request: { url: `${receiver.url}/idle${o}`, content: '{(data)}', is_batched: true } }, meta)).outlet_id);
      await waitForProjection(rt.pool, 'datatargets', (await postMessages(rt.store, id, { messages: [{ o }] }, meta)).position);
    }
    const worker = startCli(['outlet-worker'], { DATABASE_URL: rt.db.url, OUTLET_ALLOW_PRIVATE: 'true', OUTLET_POLL_MS: '20', LOG_LEVEL: 'error', MDS_SECRET_KEY: rt.config.secretKey });
    try {
      await eventually(async () => expect(await Promise.all(outlets.map((o) => lastDelivered(rt.store, o)))).toEqual(outlets.map(() => 1)), { timeoutMs: 30_000, intervalMs: 50 });
      // Every outlet delivered and waiting for more; a warning is written on the next tick.
      await new Promise((r) => setTimeout(r, 300));
      expect(worker.output()).not.toContain('MaxListenersExceededWarning');
      expect(receiver.received.filter((r) => r.url.startsWith('/hook/idle'))).toHaveLength(12);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
      await receiver.close();
    }
  });

  it('deliver each outlet\'s messages once each, in order (one owner per outlet)', async () => {
    // pg's own test for "client.query() while the client is already executing a query" (deprecated,
    // an error in pg 9): counted for every client, the workers' lease connections included.
    let overlapping = 0;
    const query = Client.prototype.query;
    const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      if ((this as unknown as { _queryQueue: unknown[] })._queryQueue.length > 0) overlapping++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as never);
    const receiver = await startReceiver();
    const workers = [new DeliveryWorker(rt, rt.config.outlets, rt.logger), new DeliveryWorker(rt, rt.config.outlets, rt.logger)];
    try {
      const meta = { actor: 'test' };
      const outlets: string[] = [];
      let position = 0;
      for (let o = 0; o < 4; o++) {
        const { datatarget_id: id } = await createDatatarget(rt.store, { datatarget_type: 'messages', name: `t${o}` }, meta);
        await createOutlet(rt.store, rt.accessDeps.secrets, id, { outlet_type: 'webhook', max_batch_size: 7, request: { url: `${receiver.url}/${o}`, content: '{(data)}', is_batched: true } }, meta);
        outlets.push(String(o));
        for (let p = 0; p < 3; p++) ({ position } = await postMessages(rt.store, id, { messages: Array.from({ length: 100 }, (_, j) => ({ o, n: p * 100 + j + 1 })) }, meta));
      }
      await waitForProjection(rt.pool, 'datatargets', position);
      await Promise.all(workers.map((w) => w.start()));
      await eventually(() => expect(workers[0].delivered + workers[1].delivered).toBe(1200), { timeoutMs: 60_000 });
      for (const o of outlets) {
        const numbers = receiver.received.filter((r) => r.url === `/hook/${o}`).flatMap((r) => r.json.map((m: { n: number }) => m.n));
        expect(numbers).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
      }
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await receiver.close();
    }
    spy.mockRestore();
    // Stopping releases every owned outlet's lease on the one lease connection: one query at a time.
    expect(overlapping).toBe(0);
  });
});
