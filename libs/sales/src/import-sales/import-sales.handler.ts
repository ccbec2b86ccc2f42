import { Inject } from '@nestjs/common';
import { CommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { ImportUnderSettings, type Settings } from '#mds/settings';
import { saleImport, type SaleImportDeps } from '../sale-import';
import { ImportSalesCommand } from './import-sales.command';

/** What earlier imports said of these transactions (a date, a customer), up to date with what was answered: a read-model port. */
export const KNOWN_SALE_TRANSACTIONS = Symbol('KNOWN_SALE_TRANSACTIONS');
export type KnownSaleTransactions = SaleImportDeps['knownTransactions'];
/** The rows transactions have now, as the read model stands: a read-model port (the bound an upsert of rows is checked against). */
export const SALE_ROWS_NOW = Symbol('SALE_ROWS_NOW');
export type SaleRowsNow = NonNullable<SaleImportDeps['rowsNow']>;

/** Rows are validated under the current settings and combined into transactions, each checked whole (date, customer, currency). */
@CommandHandler(ImportSalesCommand)
export class ImportSalesHandler extends ImportUnderSettings<ImportSalesCommand> {
  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(KNOWN_SALE_TRANSACTIONS) private readonly knownTransactions: KnownSaleTransactions,
    @Inject(SALE_ROWS_NOW) private readonly rowsNow: SaleRowsNow,
  ) {
    super(store);
  }

  protected kind(settings: Settings) {
    return saleImport(settings, { knownTransactions: this.knownTransactions, rowsNow: this.rowsNow });
  }
}
