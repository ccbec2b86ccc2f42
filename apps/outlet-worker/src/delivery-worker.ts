import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import {
  attemptBody,
  closeKeptAliveConnections,
  credentialValues,
  decideAttempt,
  deliver,
  deliveryHeaders,
  MAX_UNRECORDED_BATCHES,
  openAttemptLog,
  webhookIdOf,
  withCredentials,
  type AttemptDecision,
  type AttemptLog,
  type OutletCredentials,
  type OutletDefinition,
  type OutletState,
} from '#mds/datatargets';
import type { Logger, OutletConfig } from '#mds/platform';
import type { Runtime } from '#mds/runtime';
import { DatatargetsReadModel, openDedicatedClient, OUTLETS_CHANNEL, releaseLease, tryLease } from '#mds/projections';
import { MessageReader, type MessageRow } from './message-reader';

/** PostgreSQL's undefined_table. */
const UNDEFINED_TABLE = '42P01';

type LeaseClient = Awaited<ReturnType<typeof openDedicatedClient>>;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * Delivers outlets' messages by webhook. Each outlet is owned through a lease (a session advisory
 * lock on the worker's own connection), so several workers share the outlets and one outlet has one
 * worker at a time; its attempts are appended at the outlet stream's last revision, so a worker that
 * lost its lease cannot write either. Batches are cut after last_delivered_message_number; a failed
 * batch is retried (backoff with jitter, Retry-After) before any later message is sent.
 */
export class DeliveryWorker {
  private readonly abort = new AbortController();
  private readonly owned = new Map<string, Promise<void>>();
  private lease?: LeaseClient;
  /** Scopes this worker's kept-alive connections (several workers may share a process). */
  private readonly id = randomUUID();
  private loop?: Promise<void>;
  private sweeps?: Promise<void>;
  private readonly datatargets: DatatargetsReadModel;
  delivered = 0;

  /** The runtime gives the log (attempts are appended to outlet streams), notifications, the lease connection and the sealing key. */
  constructor(
    private readonly runtime: Runtime,
    private readonly config: OutletConfig,
    private readonly logger: Logger,
  ) {
    this.datatargets = new DatatargetsReadModel(runtime);
    // Every owned outlet waits on this signal (one listener each, removed after the wait): Node's
    // warning past ten would call a worker with eleven outlets a leak.
    setMaxListeners(0, this.abort.signal);
  }

  async start(): Promise<void> {
    this.runtime.notifications.on(OUTLETS_CHANNEL, this.countChange);
    this.runtime.notifications.on('reconnected', this.countReconnection);
    this.lease = await openDedicatedClient(this.runtime.runnerDeps(), 'outlet-worker');
    this.loop = this.claimLoop().catch((err) => this.logger.error({ err: (err as Error).message }, 'outlet worker stopped'));
    this.sweeps = this.retentionLoop();
    this.logger.info({ allowPrivate: this.config.allowPrivate }, 'outlet worker delivering');
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    await this.sweeps;
    await Promise.allSettled(this.owned.values());
    await closeKeptAliveConnections(`${this.id}:`);
    this.runtime.notifications.off(OUTLETS_CHANNEL, this.countChange);
    this.runtime.notifications.off('reconnected', this.countReconnection);
    await this.lease?.end().catch(() => undefined);
  }

  /**
   * Runs a query on the lease connection after the ones before it: claims and releases (several
   * outlets finishing at once) must not overlap on one pg client.
   */
  private onLease<T>(fn: (client: LeaseClient) => Promise<T>): Promise<T> {
    const run = this.leaseQueue.then(() => fn(this.lease!));
    this.leaseQueue = run.catch(() => undefined);
    return run;
  }

  private leaseQueue: Promise<unknown> = Promise.resolve();

  /**
   * Every retentionSweepMs: delivered messages past their datatarget's retention_days lose their
   * payload (expireDeliveredMessages; several workers may sweep, the sweeps take turns).
   */
  private async retentionLoop(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      await sleep(this.config.retentionSweepMs, signal);
      if (signal.aborted) break;
      try {
        for (;;) {
          const expired = await this.datatargets.expireDelivered();
          if (expired.posts === 0) break;
          this.logger.info(expired, 'delivered messages past their retention dropped');
        }
      } catch (err) {
        if ((err as { code?: string }).code !== UNDEFINED_TABLE && !signal.aborted) this.logger.warn({ err: (err as Error).message }, 'retention sweep failed; will retry');
      }
    }
  }

  /**
   * Looks for outlets to own: each deliverable outlet no worker holds, every poll interval and as soon
   * as an outlet or its datatarget changes (created, resumed, messages posted: announced at commit).
   */
  private async claimLoop(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      const seen = this.announced;
      try {
        for (const outlet of await this.datatargets.deliverableOutlets()) {
          const id = outlet.definition.outlet_id;
          if (this.owned.has(id) || signal.aborted) continue;
          if (!(await this.onLease((c) => tryLease(c, `outlet:${id}`)))) continue;
          const run = this.deliverOutlet(id, outlet.definition.datatarget_id)
            .catch((err) => this.logger.error({ err: (err as Error).message, outlet: id }, 'outlet delivery failed; will retry'))
            .finally(async () => {
              this.owned.delete(id);
              await this.onLease((c) => releaseLease(c, `outlet:${id}`)).catch(() => undefined);
            });
          this.owned.set(id, run);
        }
      } catch (err) {
        // On a first start the datatargets read model may not exist yet (its projection creates it): not a problem.
        if ((err as { code?: string }).code === UNDEFINED_TABLE) this.logger.debug('outlet worker waiting for the datatargets read model');
        else if (!signal.aborted) this.logger.warn({ err: (err as Error).message }, 'outlet worker could not list outlets');
      }
      if (this.announced === seen) await this.claimWait(signal);
    }
  }

  /** Until the poll interval passes, a change is announced, or the worker stops. */
  private claimWait(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        if (this.wakeClaims === done) this.wakeClaims = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.config.pollMs);
      this.wakeClaims = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private wakeClaims?: () => void;

  /**
   * Delivers one owned outlet until it is paused, deleted, or the worker stops. The state and the
   * stream revision are read from the outlet stream when idle or after a conflict, and otherwise kept
   * from the worker's own attempts (an operator's control makes the next append fail, so it is seen).
   * A batch is sent only once the previous one succeeded; attempts are appended in groups while the
   * next batches go out (one append in flight, at most MAX_UNRECORDED_BATCHES waiting), so a worker
   * that dies leaves at most that many batches plus the one being sent unrecorded (they go again,
   * with the same webhook id). Messages are read ahead several batches at a time.
   */
  private async deliverOutlet(outletId: string, datatargetId: string): Promise<void> {
    const signal = this.abort.signal;
    const messages = new MessageReader(this.datatargets, datatargetId);
    // The datatype (sent in the webhook-datatype header; a datatarget's never changes), the definition
    // and the state in the outlet's stream, read together: three round trips before the first batch.
    const onRecorded = (n: number) => (this.delivered += n);
    const [datatarget, firstOutlet, opened] = await Promise.all([
      this.datatargets.datatarget(datatargetId),
      this.datatargets.outlet(datatargetId, outletId),
      openAttemptLog(this.runtime.store, outletId, onRecorded),
    ]);
    const datatype = (datatarget?.datatype as string | undefined) ?? null;
    let known: { state: OutletState } | undefined = { state: opened.state };
    let log: AttemptLog | undefined = opened.log;
    try {
      let outlet = firstOutlet;
      let outletReadAt = Date.now();
      while (!signal.aborted) {
        if (log?.conflicted) known = undefined;
        // The definition is read again at least every second (and after every wait): changes apply that fast.
        if (!known || Date.now() - outletReadAt > 1000) {
          outlet = await this.datatargets.outlet(datatargetId, outletId);
          outletReadAt = Date.now();
        }
        if (!known || !log) {
          await log?.drain();
          const reopened = await openAttemptLog(this.runtime.store, outletId, onRecorded);
          known = { state: reopened.state };
          log = reopened.log;
        }
        const { state } = known;
        if (!outlet || state.paused !== null || outlet.datatargetEnabled === false) return;
        const now = Date.now();
        const def = outlet.definition;
        const notBefore = Math.max(
          state.retry_at ? Date.parse(state.retry_at) : 0,
          state.last_attempt_at ? Date.parse(state.last_attempt_at) + Number(def.min_request_interval) * 1000 : 0,
        );
        const size = def.is_batched ? def.max_batch_size : 1;
        const seen = this.changesOf(datatargetId);
        const { batch, readAhead } = notBefore > now ? { batch: [], readAhead: false } : await messages.batch(state.last_delivered_message_number, size);
        if (batch.length === 0) {
          if (readAhead) continue; // read before `seen`: a fresh read decides whether to wait
          await log.drain();
          known = undefined; // read again after the wait: an operator may have paused, resumed or retried
          if (notBefore > now) await sleep(Math.min(notBefore - now, this.config.pollMs * 4), signal);
          else await this.idle(datatargetId, seen, signal);
          continue;
        }
        const decided = await this.attempt(def, outletId, state, batch, datatype);
        // An operator's control (or another owner) wrote first: the attempts not yet recorded go again.
        if (log.conflicted) continue;
        known = { state: decided.state };
        log.add(decided.events, decided.entry.status === 'OK' ? batch.length : 0);
        await log.roomFor(MAX_UNRECORDED_BATCHES);
      }
    } finally {
      await log?.drain().catch(() => undefined);
    }
  }

  /** Changes announced for a datatarget (and reconnections of the notification connection) so far. */
  private changesOf(datatargetId: string): number {
    return (this.changes.get(datatargetId) ?? 0) + this.reconnections;
  }

  private readonly changes = new Map<string, number>();
  private reconnections = 0;
  /** Changes announced for any datatarget, and reconnections: what wakes the claim loop. */
  private announced = 0;
  private readonly countChange = (payload: string) => {
    this.changes.set(payload, (this.changes.get(payload) ?? 0) + 1);
    this.announced++;
    this.wakeClaims?.();
  };
  private readonly countReconnection = () => {
    this.reconnections++;
    this.announced++;
    this.wakeClaims?.();
  };

  /**
   * Waits until the datatarget's messages or outlets change (the datatargets and datasync projections
   * notify at commit), the notification connection comes back, or 10 poll intervals pass.
   */
  private idle(datatargetId: string, seen: number, signal: AbortSignal): Promise<void> {
    const notifications = this.runtime.notifications;
    // A change announced while the empty batch was being read: read again at once.
    if (this.changesOf(datatargetId) !== seen) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        notifications.off(OUTLETS_CHANNEL, onNotify);
        notifications.off('reconnected', done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const onNotify = (payload: string) => payload === datatargetId && done();
      const timer = setTimeout(done, this.config.pollMs * 10);
      notifications.on(OUTLETS_CHANNEL, onNotify);
      notifications.on('reconnected', done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Sends a batch and decides what it means (decideAttempt); the caller appends the events. */
  private async attempt(def: OutletDefinition, outletId: string, state: OutletState, batch: MessageRow[], datatype: string | null): Promise<AttemptDecision> {
    const messages = batch.map((b) => b.message);
    const body = attemptBody({ batched: def.is_batched, body: true }, def.request.content, messages);
    const secret = this.secretOf(def.secret_sealed);
    const credentials = this.credentialsOf(def.credentials_sealed);
    const request = withCredentials(def.request, credentials);
    const first = Number(batch[0].number);
    const last = Number(batch[batch.length - 1].number);
    const startedAt = performance.timeOrigin + performance.now();
    const result = await deliver(
      { url: request.url, method: request.method, headers: deliveryHeaders(request.headers, { first, last, datatype }), body: request.method === 'GET' ? undefined : body },
      {
        allowPrivate: this.config.allowPrivate,
        connectTimeoutMs: this.config.connectTimeoutMs,
        totalTimeoutMs: this.config.totalTimeoutMs,
        secret,
        webhookId: webhookIdOf(outletId, state),
        keepAliveKey: `${this.id}:${outletId}`,
        masked: credentialValues(credentials),
      },
    );
    const datasync = batch[0].after_update !== null;
    const decided = decideAttempt(
      {
        outletId,
        definition: def,
        state,
        batch: {
          first,
          last,
          size: batch.length,
          ...(datasync ? { afterUpdate: await this.updateBefore(def.datatarget_id, state.last_delivered_message_number) } : {}),
        },
        result,
        startedAtFraction: startedAt % 1,
        now: new Date(),
      },
      { baseMs: this.config.backoffBaseMs, maxMs: this.config.maxBackoffMs, pauseAfterMs: this.config.pauseAfterMs },
    );
    if (!result.ok) this.logger.warn({ outlet: outletId, entry: decided.entry.entry_number, reason: result.failReason, retryAt: decided.state.retry_at }, 'webhook delivery failed');
    if (decided.pause) this.logger.warn({ outlet: outletId, failingSince: decided.state.failing_since }, 'outlet paused itself after failing too long; resume it to continue');
    return decided;
  }

  /** The outlet's signing secret, opened once per sealed value (not again for every batch). */
  private secretOf(sealed: string | null | undefined): string | undefined {
    if (!sealed) return undefined;
    if (this.opened?.sealed !== sealed) this.opened = { sealed, secret: this.runtime.accessDeps.secrets.open(sealed) };
    return this.opened.secret;
  }

  private opened?: { sealed: string; secret: string };

  /** The outlet's request credentials, opened once per sealed value. */
  private credentialsOf(sealed: string | null | undefined): OutletCredentials | null {
    if (!sealed) return null;
    if (this.openedCredentials?.sealed !== sealed) this.openedCredentials = { sealed, credentials: JSON.parse(this.runtime.accessDeps.secrets.open(sealed)) as OutletCredentials };
    return this.openedCredentials.credentials;
  }

  private openedCredentials?: { sealed: string; credentials: OutletCredentials };

  /** A datasync batch's after_update: the change delivered last before it ("" before the first). */
  private async updateBefore(datatargetId: string, lastDelivered: number): Promise<string> {
    if (lastDelivered === 0) return '';
    const [previous] = await this.datatargets.messages(datatargetId, lastDelivered - 1, 1);
    return previous?.after_update ?? '';
  }
}
