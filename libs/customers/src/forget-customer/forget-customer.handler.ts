import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import type { ImportAnswer } from '#mds/imports';
import { ImportCustomersCommand } from '../import-customers/import-customers.command';
import { ImportCustomersHandler } from '../import-customers/import-customers.handler';
import { ForgetCustomerCommand } from './forget-customer.command';

/** A forgetting is a customer import of its one record: validated, recorded and applied as any is. */
@CommandHandler(ForgetCustomerCommand)
export class ForgetCustomerHandler implements ICommandHandler<ForgetCustomerCommand, ImportAnswer> {
  private readonly imports: ImportCustomersHandler;

  constructor(@Inject(EVENT_STORE) store: EventStore) {
    this.imports = new ImportCustomersHandler(store);
  }

  execute(command: ForgetCustomerCommand): Promise<ImportAnswer> {
    // A forgetting is never a dry run: its answer is a run's.
    return this.imports.execute(new ImportCustomersCommand({ ...command.request, dryRun: false })) as Promise<ImportAnswer>;
  }
}
