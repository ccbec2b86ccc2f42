import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { appendDecided, EVENT_STORE, type EventStore } from '#mds/event-store';
import { SECRET_BOX, type SecretBox } from '#mds/platform';
import { intervalOf, liveHead, metadataOf, outletRequest, startingState, type CommandMeta } from '../datatarget.decider';
import { datatargetStream, OUTLET_CONTROLLED, OUTLET_CREATED, OUTLET_SCHEMA, outletStream, type OutletControlled, type OutletCreated, type OutletDefinition, type OutletState } from '../datatarget.events';
import { appendControl } from '../control-outlet/control-outlet.handler';
import { CreateOutletCommand } from './create-outlet.command';
import { splitCredentials } from '../outlet-credentials';
import { OUTLET_SETTINGS, refusePrivateDestination, type OutletSettings } from '../outlet-settings';

/** The outlet's definition goes into its datatarget's stream (with where numbering stands), its delivery state into its own. */
@CommandHandler(CreateOutletCommand)
export class CreateOutletHandler implements ICommandHandler<CreateOutletCommand, { outlet_id: string; position: number }> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SECRET_BOX) private readonly secrets: SecretBox,
    @Inject(OUTLET_SETTINGS) private readonly settings: Pick<OutletSettings, 'allowPrivate' | 'lookup'>,
  ) {}

  async execute({ datatargetId, input, meta, shownLastMessageNumber }: CreateOutletCommand) {
    // Credentials leave the request before it goes into the log; they go in sealed.
    const { request, credentials } = splitCredentials(outletRequest(input.request ?? {}), input.request?.secret_headers);
    await refusePrivateDestination(request.url, this.settings);
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
    const state = input.start === 'now' ? await this.startNow(datatargetId, outlet.outlet_id, shownLastMessageNumber, meta) : undefined;
    const { position } = await appendDecided(this.store, datatargetStream(datatargetId), (last) => {
      const { lastMessageNumber } = liveHead(last, datatargetId);
      const data: OutletCreated = { outlet, last_message_number: lastMessageNumber, ...(state ? { state } : {}) };
      return [{ type: OUTLET_CREATED, data, metadata: { ...metadataOf(meta), schema: OUTLET_SCHEMA } }];
    });
    // Created disabled: paused at once in its own stream; the answer waits for that position.
    const paused = input.enabled === false ? await appendControl(this.store, outlet.outlet_id, 'pause', meta) : undefined;
    return { outlet_id: outlet.outlet_id, position: paused ?? position };
  }

  /**
   * An outlet starting after the messages already there: its stream's first event says so, appended
   * before the outlet exists, so no worker can take the new outlet and send message 1 first. (A post
   * landing between this and the outlet's creation is delivered: it came after the request.)
   */
  private async startNow(datatargetId: string, outletId: string, shown: number, meta: CommandMeta): Promise<OutletState | undefined> {
    const [last] = await this.store.readStream(datatargetStream(datatargetId), { direction: 'backwards', limit: 1 });
    const at = new Date().toISOString();
    const state = startingState('now', Math.max(liveHead(last, datatargetId).lastMessageNumber, shown), at);
    if (!state) return undefined;
    const data: OutletControlled = { outlet_id: outletId, action: 'start', to_message_number: state.last_delivered_message_number + 1, by: meta.actor, at, state };
    await this.store.append(outletStream(outletId), [{ type: OUTLET_CONTROLLED, data, metadata: metadataOf(meta) }], { expectedRevision: 'no_stream' });
    return state;
  }
}
