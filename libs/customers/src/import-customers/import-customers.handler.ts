import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { runImport, type ImportAnswer } from '#mds/imports';
import { loadSettings } from '#mds/settings';
import { customerImport } from '../customer-import';
import { ImportCustomersCommand } from './import-customers.command';

/** Validates the records under the current settings and appends the run (`import-<run_id>`) in one append. */
@CommandHandler(ImportCustomersCommand)
export class ImportCustomersHandler implements ICommandHandler<ImportCustomersCommand, ImportAnswer> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ request }: ImportCustomersCommand): Promise<ImportAnswer> {
    const { settings } = await loadSettings(this.store);
    return (await runImport(this.store, customerImport(settings), request)).answer;
  }
}
