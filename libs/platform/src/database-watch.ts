import { Client } from 'pg';
import type { Logger } from './logging';

/**
 * Whether PostgreSQL answers, from a connection of its own: `SELECT 1` every `intervalMs`, given up
 * after `timeoutMs`. A server that is down, or up but not answering (frozen, its disk stalled), is
 * seen within interval + timeout, so requests can be refused at once with 503 instead of hanging on a
 * pool whose queries will not come back. The connection is dropped and made again after a failure.
 *
 * The time limit counts only time this process could read an answer: time the event loop was
 * stalled (a long parse, a full collection) does not count, up to ten time limits in all, so a busy
 * service does not refuse every request for a database that did answer while it still sees one that
 * never does.
 */
/** How late a timer may fire before the process counts as stalled rather than the database as silent. */
const STALLED_MS = 100;

export class DatabaseWatch {
  private client?: Client;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private downSince?: Date;
  private readonly listeners = new Set<(down: boolean) => void>();

  constructor(
    private readonly url: string,
    private readonly options: { intervalMs?: number; timeoutMs?: number; logger?: Logger } = {},
  ) {}

  /** When the database stopped answering, while it does not. */
  get down(): Date | undefined {
    return this.downSince;
  }

  onChange(listener: (down: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.drop();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.check(), ms);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    const timeoutMs = this.options.timeoutMs ?? 2000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        (async () => {
          if (!this.client) {
            const client = new Client({ connectionString: this.url, application_name: 'mds-watch' }); // its time limit is the one below
            client.on('error', () => undefined); // seen by the next check
            this.client = client;
            await client.connect();
          }
          await this.client.query('SELECT 1');
        })(),
        new Promise((_, reject) => {
          // Counted in short ticks: a tick later than STALLED_MS was a stall of this process, and
          // only the tick's own length of it counts. A single timer for the whole limit would see
          // a stall that began as the check did and outlasted the limit as mere lateness.
          const giveUp = Date.now() + 10 * timeoutMs;
          const tickMs = Math.min(timeoutMs, STALLED_MS / 2);
          let waited = 0;
          let last = Date.now();
          const tick = () => {
            timer = setTimeout(() => {
              const now = Date.now();
              const elapsed = now - last;
              last = now;
              waited += elapsed - tickMs > STALLED_MS ? tickMs : elapsed;
              if (waited >= timeoutMs || now >= giveUp) reject(new Error(`no answer within ${timeoutMs} ms`));
              else tick();
            }, tickMs);
          };
          tick();
        }),
      ]);
      this.set(undefined);
    } catch (err) {
      this.drop();
      if (!this.downSince) this.options.logger?.error({ err: (err as Error).message }, 'PostgreSQL is not answering: requests are refused with 503 until it does');
      this.set(this.downSince ?? new Date());
    } finally {
      clearTimeout(timer);
      this.schedule(this.options.intervalMs ?? 1000);
    }
  }

  private set(since: Date | undefined): void {
    const changed = Boolean(since) !== Boolean(this.downSince);
    this.downSince = since;
    if (!changed) return;
    if (!since) this.options.logger?.info('PostgreSQL answers again');
    for (const listener of this.listeners) listener(Boolean(since));
  }

  /** Forgets the connection without waiting for a server that may never answer. */
  private drop(): void {
    const client = this.client as (Client & { connection?: { stream?: { destroy(): void } } }) | undefined;
    this.client = undefined;
    client?.connection?.stream?.destroy();
    void client?.end().catch(() => undefined);
  }
}
