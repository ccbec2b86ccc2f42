import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { appendDecided, EVENT_STORE, type EventStore } from '#mds/event-store';
import { invalidRequest, SECRET_BOX, type SecretBox } from '#mds/platform';
import { intervalOf, liveHead, metadataOf, outletRequest } from '../datatarget.decider';
import { datatargetStream, OUTLET_CHANGED, OUTLET_SCHEMA, type OutletChanged } from '../datatarget.events';
import { appendControl } from '../control-outlet/control-outlet.handler';
import { ChangeOutletCommand } from './change-outlet.command';
import { mergeCredentials, splitCredentials, type OutletCredentials } from '../outlet-credentials';
import { OUTLET_SETTINGS, refusePrivateDestination, type OutletSettings } from '../outlet-settings';

/** Definition changes go into the datatarget's stream, pausing and resuming into the outlet's (where delivery reads its state). */
@CommandHandler(ChangeOutletCommand)
export class ChangeOutletHandler implements ICommandHandler<ChangeOutletCommand, number> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SECRET_BOX) private readonly secrets: SecretBox,
    @Inject(OUTLET_SETTINGS) private readonly settings: Pick<OutletSettings, 'allowPrivate' | 'lookup'>,
  ) {}

  async execute({ current, input, meta }: ChangeOutletCommand): Promise<number> {
    const changes: OutletChanged['changes'] = {};
    if (input.request !== undefined) {
      const { request, credentials } = splitCredentials(outletRequest(input.request, current.request), input.request.secret_headers);
      if (input.request.url !== undefined) await refusePrivateDestination(request.url, this.settings);
      // The parts the change leaves alone keep their credentials, the parts it sends bring theirs.
      const kept = current.credentials_sealed ? (JSON.parse(this.secrets.open(current.credentials_sealed)) as OutletCredentials) : null;
      const merged = mergeCredentials(kept, { headers: input.request.headers !== undefined, url: input.request.url !== undefined }, credentials);
      changes.request = request;
      changes.credentials_sealed = merged ? this.secrets.seal(JSON.stringify(merged)) : null;
      if (input.request.is_batched !== undefined) changes.is_batched = input.request.is_batched;
    }
    if (input.is_batched !== undefined) changes.is_batched = input.is_batched;
    if (input.max_batch_size !== undefined) changes.max_batch_size = input.max_batch_size;
    if (input.min_request_interval !== undefined) changes.min_request_interval = intervalOf(input.min_request_interval);
    if (input.secret !== undefined) changes.secret_sealed = input.secret ? this.secrets.seal(input.secret) : null;
    if (Object.keys(changes).length === 0 && input.enabled === undefined) throw invalidRequest('Nothing to change');
    let position = 0;
    if (Object.keys(changes).length > 0) {
      ({ position } = await appendDecided(this.store, datatargetStream(current.datatarget_id), (last) => {
        const { lastMessageNumber } = liveHead(last, current.datatarget_id);
        return [{ type: OUTLET_CHANGED, data: { outlet_id: current.outlet_id, changes, last_message_number: lastMessageNumber } satisfies OutletChanged, metadata: { ...metadataOf(meta), schema: OUTLET_SCHEMA } }];
      }));
    }
    if (input.enabled !== undefined) position = await appendControl(this.store, current.outlet_id, input.enabled ? 'resume' : 'pause', meta);
    return position;
  }
}
