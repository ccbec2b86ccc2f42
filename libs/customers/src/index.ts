export * from './customers.events';
export * from './customer-import';
