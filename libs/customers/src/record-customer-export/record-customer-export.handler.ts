import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { CUSTOMER_DATA_EXPORTED, customerExportStream } from '../customers.events';
import { decideCustomerExport, RecordCustomerExportCommand } from './record-customer-export.command';

/** Appends the export's record before any of the customer's data leaves: no record, no export. */
@CommandHandler(RecordCustomerExportCommand)
export class RecordCustomerExportHandler implements ICommandHandler<RecordCustomerExportCommand, { position: number }> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(command: RecordCustomerExportCommand): Promise<{ position: number }> {
    const data = decideCustomerExport(command);
    const { position } = await this.store.append(
      customerExportStream(data.customer_id),
      [{ type: CUSTOMER_DATA_EXPORTED, data, metadata: { actor: command.actor, token_id: command.tokenId, request_id: command.requestId } }],
      { expectedRevision: 'any' },
    );
    return { position };
  }
}
