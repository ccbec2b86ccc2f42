export * from './customers.events';
export * from './customer-import';
export { ERASED_IDENTIFIERS, erasedIdentifierText, erasedIdentifierWarnings, type ErasedIdentifiers } from './erased-identifiers';
export { ImportCustomersCommand } from './import-customers/import-customers.command';
export { ImportCustomersHandler } from './import-customers/import-customers.handler';
export { ForgetCustomerCommand, forgetRecord, identifierKind, type ForgetBy } from './forget-customer/forget-customer.command';
export { ForgetCustomerHandler } from './forget-customer/forget-customer.handler';
export { CustomersModule } from './customers.module';
export * as customerMergeModel from './merge/customer-merge.model';
