import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { runImport, type ImportAnswer } from '#mds/imports';
import { loadSettings } from '#mds/settings';
import { productImport } from '../product-import';
import { ImportProductsCommand } from './import-products.command';

/** Validates the rows under the current settings and appends the run (`import-<run_id>`) in one append. */
@CommandHandler(ImportProductsCommand)
export class ImportProductsHandler implements ICommandHandler<ImportProductsCommand, ImportAnswer> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ request }: ImportProductsCommand): Promise<ImportAnswer> {
    const { settings } = await loadSettings(this.store);
    return (await runImport(this.store, productImport(settings), request)).answer;
  }
}
