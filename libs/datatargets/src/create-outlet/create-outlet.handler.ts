import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { appendDecided, EVENT_STORE, type EventStore } from '#mds/event-store';
import { SECRET_BOX, type SecretBox } from '#mds/platform';
import { intervalOf, liveHead, metadataOf, outletRequest } from '../datatarget.decider';
import { datatargetStream, OUTLET_CREATED, OUTLET_SCHEMA, type OutletCreated, type OutletDefinition } from '../datatarget.events';
import { appendControl } from '../control-outlet/control-outlet.handler';
import { CreateOutletCommand } from './create-outlet.command';
import { splitCredentials } from '../outlet-credentials';

/** The outlet's definition goes into its datatarget's stream (with where numbering stands), its delivery state into its own. */
@CommandHandler(CreateOutletCommand)
export class CreateOutletHandler implements ICommandHandler<CreateOutletCommand, { outlet_id: string; position: number }> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SECRET_BOX) private readonly secrets: SecretBox,
  ) {}

  async execute({ datatargetId, input, meta }: CreateOutletCommand) {
    // Credentials leave the request before it goes into the log; they go in sealed.
    const { request, credentials } = splitCredentials(outletRequest(input.request ?? {}), input.request?.secret_headers);
    const outlet: OutletDefinition = {
      outlet_id: randomUUID(),
      datatarget_id: datatargetId,
      outlet_type: 'webhook',
      request,
      // is_batched is sent inside `request` (the spec) or at the outlet's level (as it is shown).
      is_batched: input.is_batched ?? input.request?.is_batched ?? false,
      max_batch_size: input.max_batch_size ?? 100,
      min_request_interval: input.min_request_interval === undefined ? '0' : intervalOf(input.min_request_interval),
      secret_sealed: input.secret ? this.secrets.seal(input.secret) : null,
      credentials_sealed: credentials ? this.secrets.seal(JSON.stringify(credentials)) : null,
      created_at: new Date().toISOString(),
    };
    const { position } = await appendDecided(this.store, datatargetStream(datatargetId), (last) => {
      const { lastMessageNumber } = liveHead(last, datatargetId);
      return [{ type: OUTLET_CREATED, data: { outlet, last_message_number: lastMessageNumber } satisfies OutletCreated, metadata: { ...metadataOf(meta), schema: OUTLET_SCHEMA } }];
    });
    // Created disabled: paused at once in its own stream; the answer waits for that position.
    const paused = input.enabled === false ? await appendControl(this.store, outlet.outlet_id, 'pause', meta) : undefined;
    return { outlet_id: outlet.outlet_id, position: paused ?? position };
  }
}
