import { Inject } from '@nestjs/common';
import { CommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { ImportUnderSettings, type Settings } from '#mds/settings';
import { productImport } from '../product-import';
import { ImportProductsCommand } from './import-products.command';

/** Product rows are validated under the current settings (dates' zone). */
@CommandHandler(ImportProductsCommand)
export class ImportProductsHandler extends ImportUnderSettings<ImportProductsCommand> {
  constructor(@Inject(EVENT_STORE) store: EventStore) {
    super(store);
  }

  protected kind(settings: Settings) {
    return productImport(settings);
  }
}
