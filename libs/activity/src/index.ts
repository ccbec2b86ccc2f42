export * from './event-import';
export * from './event.fields';
export * from './customer-effects';
export { ImportEventsCommand } from './import-events/import-events.command';
export { ImportEventsHandler, KNOWN_EVENT_IDS, KNOWN_SALES_NOW, type KnownEventIds, type KnownSalesNow } from './import-events/import-events.handler';
export { ActivityModule } from './activity.module';
