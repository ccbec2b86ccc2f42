import type { Client } from 'pg';
import { openDedicatedClient, tryLease, type RunnerDeps } from '../runtime/projection-runner';
import { appendCheckpoint } from './audit-export';

/**
 * Appends a signed checkpoint of the audit chain to the log every `auditCheckpointMs` when events came
 * since the last one: what anchors an export to the log (README "Audit trail"). One projector holds it
 * at a time (a session advisory lock, as projections are held); the others stand by.
 */
export class AuditAnchor {
  private stopped = false;
  private timer?: NodeJS.Timeout;
  private client?: Client;
  private running?: Promise<void>;

  constructor(private readonly deps: RunnerDeps) {}

  start(): void {
    if (!this.deps.auditSigner || !this.deps.auditCheckpointMs) return;
    this.schedule(this.deps.auditCheckpointMs);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => this.schedule(this.deps.auditCheckpointMs!));
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      this.client ??= await openDedicatedClient(this.deps, 'audit-anchor');
      if (!(await tryLease(this.client, 'audit_anchor'))) return;
      // In the background: after each slice of hashing it rests twice as long, a third of a core at
      // most (the first checkpoint after a bulk import hashes every chunk of it: seconds of CPU).
      const appended = await appendCheckpoint(this.deps.store, this.deps.auditSigner!(), { pauseMs: 20 });
      if (appended) this.deps.logger?.debug({ position: appended.position, count: appended.count }, 'audit chain checkpointed');
    } catch (err) {
      this.deps.logger?.warn({ err: (err as Error).message }, 'audit checkpoint failed; trying again at the next interval');
      await this.client?.end().catch(() => undefined);
      this.client = undefined;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.client?.end().catch(() => undefined);
  }
}
