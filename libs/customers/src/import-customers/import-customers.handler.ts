import { Inject } from '@nestjs/common';
import { CommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { ImportUnderSettings, type Settings } from '#mds/settings';
import { customerImport } from '../customer-import';
import { ImportCustomersCommand } from './import-customers.command';

/** Customers are validated under the current settings (phones' country, dates' zone, company prefixes). */
@CommandHandler(ImportCustomersCommand)
export class ImportCustomersHandler extends ImportUnderSettings<ImportCustomersCommand> {
  constructor(@Inject(EVENT_STORE) store: EventStore) {
    super(store);
  }

  protected kind(settings: Settings) {
    return customerImport(settings);
  }
}
