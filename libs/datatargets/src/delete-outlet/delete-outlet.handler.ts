import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { appendDecided, EVENT_STORE, type EventStore } from '#mds/event-store';
import { liveHead, metadataOf } from '../datatarget.decider';
import { datatargetStream, OUTLET_DELETED } from '../datatarget.events';
import { DeleteOutletCommand } from './delete-outlet.command';

@CommandHandler(DeleteOutletCommand)
export class DeleteOutletHandler implements ICommandHandler<DeleteOutletCommand, number> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ current, meta }: DeleteOutletCommand): Promise<number> {
    const { position } = await appendDecided(this.store, datatargetStream(current.datatarget_id), (last) => {
      const { lastMessageNumber } = liveHead(last, current.datatarget_id);
      return [{ type: OUTLET_DELETED, data: { outlet_id: current.outlet_id, last_message_number: lastMessageNumber }, metadata: metadataOf(meta) }];
    });
    return position;
  }
}
