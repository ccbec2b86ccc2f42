import * as net from 'node:net';
import { Writable } from 'node:stream';
import { createTestDatabase, type TestDatabase } from '#mds/testing/database';
import { DatabaseWatch } from './database-watch';
import { createLogger } from './logging';

/** Keeps this process's event loop from turning for `ms` (as a long JSON parse or a full collection does). */
const stall = (ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The watch says PostgreSQL is down only when PostgreSQL does not answer, not when this process was
// too busy to read its answer: a false "down" refuses every request with 503.
describe('DatabaseWatch', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('does not call a database down while its own process was stalled past the time limit', async () => {
    // The service's default limit: a loaded runner's PostgreSQL may take most of a second to start the
    // connection's backend once the stalls end (800 ms was once not enough).
    // What the watch logs when it calls the database down says why: a check given up on, or an error.
    const started = Date.now();
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(`+${Date.now() - started} ms ${String(chunk).trim()}`), done()) });
    const watch = new DatabaseWatch(db.url, { intervalMs: 20, timeoutMs: 2000, logger: createLogger('info', 'watch-test', sink) });
    const changes: Array<{ down: boolean; at: number }> = [];
    watch.onChange((down) => changes.push({ down, at: Date.now() - started }));
    watch.start();
    // Stalled in the same timer turn as the first check, so its connection is in flight.
    await new Promise<void>((resolve) => setTimeout(() => (stall(2300), resolve()), 0));
    for (let i = 0; i < 2; i++) {
      await sleep(15 + i * 7);
      stall(2100);
    }
    // Longer than the limit: a check given up on would be seen by now.
    await sleep(2200);
    await watch.stop();
    expect({ changes, lines }).toEqual({ changes: [], lines: [] });
  });

  it('does not call a database down for a stall that begins as a check starts and outlasts its limit', async () => {
    // The stall covers the whole limit and only a little more: the watch's timer fires just 50 ms
    // late, yet the process never had a moment to read the answer.
    const watch = new DatabaseWatch(db.url, { intervalMs: 1000, timeoutMs: 500 });
    const changes: boolean[] = [];
    watch.onChange((down) => changes.push(down));
    watch.start();
    await new Promise<void>((resolve) => setTimeout(() => (stall(550), resolve()), 0));
    // Absence over a window, as above: a check given up on is called down at the first tick after
    // the stall (50 ms), well within it.
    await sleep(200);
    await watch.stop();
    expect(changes).toEqual([]);
  });

  // A server that accepts connections and says nothing, as a frozen PostgreSQL does; `busy` stalls
  // this process for 200 ms in every 250 while it waits.
  const silentFor = async (busy: boolean) => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const watch = new DatabaseWatch(`postgres://x:y@127.0.0.1:${port}/z`, { intervalMs: 20, timeoutMs: 150 });
    const started = Date.now();
    const down = new Promise<number>((resolve) => watch.onChange((d) => d && resolve(Date.now() - started)));
    const stalls = busy ? setInterval(() => stall(200), 50) : undefined;
    watch.start();
    const after = await down;
    clearInterval(stalls);
    await watch.stop();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
    expect(watch.down).toBeInstanceOf(Date);
    return after;
  };

  it('calls a database down that takes a connection and never answers, within interval + time limit', async () => {
    const after = await silentFor(false);
    expect(after).toBeGreaterThanOrEqual(140);
    expect(after).toBeLessThan(1000);
  });

  it('still calls it down while its own process stalls, within ten time limits', async () => {
    const after = await silentFor(true);
    expect(after).toBeGreaterThan(300);
    expect(after).toBeLessThan(10 * 150 + 1000);
  });
});
