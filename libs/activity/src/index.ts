export * from './event-import';
export * from './customer-effects';
