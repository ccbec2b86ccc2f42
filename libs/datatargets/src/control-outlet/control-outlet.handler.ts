import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { appendDecided, EVENT_STORE, type EventStore } from '#mds/event-store';
import { controlled, metadataOf, outletStateOf, type CommandMeta } from '../datatarget.decider';
import { OUTLET_CONTROLLED, outletStream, type OutletControlled } from '../datatarget.events';
import { ControlOutletCommand } from './control-outlet.command';

/**
 * A control appended to the outlet's stream at its last revision, carrying the state after it: the
 * worker owning the outlet finds its next append refused and reads the state again.
 */
export async function appendControl(store: EventStore, outletId: string, action: OutletControlled['action'], meta: CommandMeta, toMessageNumber?: number): Promise<number> {
  const { position } = await appendDecided(store, outletStream(outletId), (last) => {
    const at = new Date().toISOString();
    const state = controlled(outletStateOf(last), action, at, toMessageNumber);
    const data: OutletControlled = { outlet_id: outletId, action, ...(toMessageNumber !== undefined ? { to_message_number: toMessageNumber } : {}), by: meta.actor, at, state };
    return [{ type: OUTLET_CONTROLLED, data, metadata: metadataOf(meta) }];
  });
  return position;
}

@CommandHandler(ControlOutletCommand)
export class ControlOutletHandler implements ICommandHandler<ControlOutletCommand, number> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  execute({ outletId, action, meta, toMessageNumber }: ControlOutletCommand): Promise<number> {
    return appendControl(this.store, outletId, action, meta, toMessageNumber);
  }
}
