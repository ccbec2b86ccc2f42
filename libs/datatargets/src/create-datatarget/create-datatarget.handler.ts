import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { datatypeOf, metadataOf } from '../datatarget.decider';
import { DATATARGET_CREATED, datatargetStream, type DatatargetCreated } from '../datatarget.events';
import { CreateDatatargetCommand } from './create-datatarget.command';

/** A new stream `datatarget-<id>` whose first event is the definition (numbering starts at 0). */
@CommandHandler(CreateDatatargetCommand)
export class CreateDatatargetHandler implements ICommandHandler<CreateDatatargetCommand, { datatarget_id: string; position: number }> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ input, meta }: CreateDatatargetCommand) {
    const datatype = datatypeOf(input.datatarget_type, input.datatype);
    const id = randomUUID();
    const data: DatatargetCreated = {
      datatarget_id: id,
      datatarget_type: input.datatarget_type,
      datatype,
      name: input.name.trim(),
      description: input.description?.trim() ?? '',
      created_at: new Date().toISOString(),
      last_message_number: 0,
      ...(input.retention_days !== undefined && input.retention_days !== null ? { retention_days: input.retention_days } : {}),
    };
    const result = await this.store.append(datatargetStream(id), [{ type: DATATARGET_CREATED, data, metadata: metadataOf(meta) }], { expectedRevision: 'no_stream' });
    return { datatarget_id: id, position: result.position };
  }
}
