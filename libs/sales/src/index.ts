export * from './sale-import';
export * from './sale-state';
export { SALE_FIELDS, SALE_RECORD } from './sale.fields';
export { ImportSalesCommand } from './import-sales/import-sales.command';
export { ImportSalesHandler, KNOWN_SALE_TRANSACTIONS, SALE_ROWS_NOW, type KnownSaleTransactions, type SaleRowsNow } from './import-sales/import-sales.handler';
export { SalesModule } from './sales.module';
