import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { appendDecided, EVENT_STORE, type EventStore } from '#mds/event-store';
import { invalidRequest } from '#mds/platform';
import { liveHead, metadataOf } from '../datatarget.decider';
import { DATATARGET_CHANGED, datatargetStream, type DatatargetChanged } from '../datatarget.events';
import { ChangeDatatargetCommand } from './change-datatarget.command';

@CommandHandler(ChangeDatatargetCommand)
export class ChangeDatatargetHandler implements ICommandHandler<ChangeDatatargetCommand, number> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ datatargetId, changes, meta }: ChangeDatatargetCommand): Promise<number> {
    const sent: DatatargetChanged['changes'] = {
      ...(changes.name !== undefined ? { name: changes.name.trim() } : {}),
      ...(changes.description !== undefined ? { description: changes.description.trim() } : {}),
      ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}),
      ...(changes.retention_days !== undefined ? { retention_days: changes.retention_days } : {}),
    };
    if (Object.keys(sent).length === 0) throw invalidRequest('Nothing to change: send name, description, enabled or retention_days');
    const { position } = await appendDecided(this.store, datatargetStream(datatargetId), (last) => {
      const { lastMessageNumber } = liveHead(last, datatargetId);
      return [{ type: DATATARGET_CHANGED, data: { changes: sent, last_message_number: lastMessageNumber } satisfies DatatargetChanged, metadata: metadataOf(meta) }];
    });
    return position;
  }
}
