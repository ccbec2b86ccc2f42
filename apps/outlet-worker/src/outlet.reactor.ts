import type { EventStore, EventSubscription } from '../../../libs/event-store/src';
import type { Logger } from '../../../libs/platform/src';

/**
 * Follows the log's datatarget and outlet streams from the head. Webhook delivery (batches,
 * retries, leases per outlet, attempt events) arrives with the datatargets context; until then the
 * reactor only tracks how far it has read, so the worker's lifecycle is real and testable.
 */
export class OutletReactor {
  private subscription?: EventSubscription;
  private running?: Promise<void>;
  position = 0;
  seen = 0;

  constructor(
    private readonly store: EventStore,
    private readonly logger?: Logger,
  ) {}

  async start(): Promise<void> {
    this.position = await this.store.headPosition();
    this.subscription = this.store.subscribe({ after: this.position, filter: { streamPrefixes: ['datatarget-', 'outlet-'] } });
    const subscription = this.subscription;
    this.running = (async () => {
      for await (const page of subscription) {
        this.position = page.position;
        this.seen += page.events.length;
      }
    })().catch((err) => this.logger?.error({ err: (err as Error).message }, 'outlet reactor stopped'));
    this.logger?.info({ from: this.position }, 'outlet worker following datatarget streams');
  }

  async stop(): Promise<void> {
    await this.subscription?.close();
    await this.running;
  }
}
