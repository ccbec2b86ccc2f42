export * from './event-store.port';
export * from './event-store.errors';
export * from './event-store.factory';
export * from './upcasters';
export { catchUpSubscription } from './catch-up';
export { PostgresEventStore, POSTGRES_EVENT_STORE_MIGRATIONS } from './postgres/postgres-event-store';
export type { EsdbEventStore } from './esdb/esdb-event-store';
export { appendDecided } from './append-decided';
export { PERSONAL_DATA_MIGRATIONS, PERSONAL_MERGE_SQL, PersonalDataEventStore, mergeRecord, mergeRecords, personalCommitment, splitRecord, type KeptFields, type PersonalFields } from './personal-data/personal-data-store';
