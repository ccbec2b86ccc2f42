import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { runImport, type ImportAnswer } from '#mds/imports';
import { loadSettings } from '#mds/settings';
import { saleImport, type SaleImportDeps } from '../sale-import';
import { ImportSalesCommand } from './import-sales.command';

/** What earlier imports said of these transactions (a date, a customer), up to date with what was answered: a read-model port. */
export const KNOWN_SALE_TRANSACTIONS = Symbol('KNOWN_SALE_TRANSACTIONS');
export type KnownSaleTransactions = SaleImportDeps['knownTransactions'];

/** Validates the rows, combines them into transactions (checked whole: date, customer, currency) and appends the run. */
@CommandHandler(ImportSalesCommand)
export class ImportSalesHandler implements ICommandHandler<ImportSalesCommand, ImportAnswer> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(KNOWN_SALE_TRANSACTIONS) private readonly knownTransactions: KnownSaleTransactions,
  ) {}

  async execute({ request }: ImportSalesCommand): Promise<ImportAnswer> {
    const { settings } = await loadSettings(this.store);
    return (await runImport(this.store, saleImport(settings, { knownTransactions: this.knownTransactions }), request)).answer;
  }
}
