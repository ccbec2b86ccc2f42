import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { appendDecided, EVENT_STORE, type EventStore } from '#mds/event-store';
import { SECRET_BOX, type SecretBox } from '#mds/platform';
import { outletStateOf } from '../datatarget.decider';
import { outletStream, type OutletDefinition } from '../datatarget.events';
import { deliveryHeaders } from '../delivery/service-headers';
import { deliver } from '../delivery/webhook-client';
import { credentialValues, withCredentials, type OutletCredentials } from '../outlet-credentials';
import { attemptBody } from '../outlet-delivery';
import { OUTLET_SETTINGS, type OutletSettings } from '../outlet-settings';
import { decideTestAttempt } from '../record-attempts/attempt.decider';
import { SendTestCommand, type SentTest } from './send-test.command';

/** The sample a test sends: marked as a test, naming the outlet, never a message of the datatarget. */
export function sampleMessage(outlet: Pick<OutletDefinition, 'outlet_id' | 'datatarget_id'>, datatype: string | null, at: Date): Record<string, unknown> {
  return {
    test: true,
    message: 'A test message from marketing-data-service: not one of the datatarget\'s messages',
    datatarget_id: outlet.datatarget_id,
    outlet_id: outlet.outlet_id,
    ...(datatype ? { datatype } : {}),
    sent_at: at.toISOString(),
  };
}

/**
 * Sends in the API process, synchronously, with the worker's client, destination check and timeouts
 * (OUTLET_*): the answer says how the receiver took it, whether or not a worker runs or owns the
 * outlet (a paused one too). The entry is appended at the outlet stream's last revision like an
 * operator's control: a worker delivering at that moment sends its unrecorded batches again.
 */
@CommandHandler(SendTestCommand)
export class SendTestHandler implements ICommandHandler<SendTestCommand, SentTest> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SECRET_BOX) private readonly secrets: SecretBox,
    @Inject(OUTLET_SETTINGS) private readonly settings: OutletSettings,
  ) {}

  async execute({ outlet, datatype, meta }: SendTestCommand): Promise<SentTest> {
    const credentials = outlet.credentials_sealed ? (JSON.parse(this.secrets.open(outlet.credentials_sealed)) as OutletCredentials) : null;
    const request = withCredentials(outlet.request, credentials);
    const sample = sampleMessage(outlet, datatype, new Date());
    const get = request.method === 'GET';
    const startedAt = performance.timeOrigin + performance.now();
    // Unlike a batch's, its id is its own: a receiver deduplicating on webhook-id never drops a real batch for it.
    const webhookId = `msg_${outlet.outlet_id}_test_${randomUUID()}`;
    const result = await deliver(
      { url: request.url, method: request.method, headers: deliveryHeaders(request.headers, { datatype }), body: get ? undefined : attemptBody({ batched: outlet.is_batched, body: true }, outlet.request.content, [sample]) },
      {
        allowPrivate: this.settings.allowPrivate,
        connectTimeoutMs: this.settings.connectTimeoutMs,
        totalTimeoutMs: this.settings.totalTimeoutMs,
        secret: outlet.secret_sealed ? this.secrets.open(outlet.secret_sealed) : undefined,
        webhookId,
        masked: credentialValues(credentials),
        lookup: this.settings.lookup,
      },
    );
    let decided!: ReturnType<typeof decideTestAttempt>;
    const { position } = await appendDecided(this.store, outletStream(outlet.outlet_id), (last) => {
      decided = decideTestAttempt({ outletId: outlet.outlet_id, datatargetId: outlet.datatarget_id, state: outletStateOf(last), webhookId, result, startedAtFraction: startedAt % 1, meta });
      return decided.events;
    });
    return { entry: decided.entry, position };
  }
}
