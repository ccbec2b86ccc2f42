import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { appendDecided, EVENT_STORE, type EventStore } from '#mds/event-store';
import { liveHead, metadataOf } from '../datatarget.decider';
import { DATATARGET_DELETED, datatargetStream } from '../datatarget.events';
import { DeleteDatatargetCommand } from './delete-datatarget.command';

@CommandHandler(DeleteDatatargetCommand)
export class DeleteDatatargetHandler implements ICommandHandler<DeleteDatatargetCommand, number> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ datatargetId, meta }: DeleteDatatargetCommand): Promise<number> {
    const { position } = await appendDecided(this.store, datatargetStream(datatargetId), (last) => {
      const { lastMessageNumber } = liveHead(last, datatargetId);
      return [{ type: DATATARGET_DELETED, data: { last_message_number: lastMessageNumber }, metadata: metadataOf(meta) }];
    });
    return position;
  }
}
