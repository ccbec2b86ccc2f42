import type { Pool } from 'pg';
import type { EsdbEventStore } from './esdb/esdb-event-store';
import type { EventStore } from './event-store.port';
import { PostgresEventStore, type AppendListener } from './postgres/postgres-event-store';
import { PersonalDataEventStore, type PersonalFields } from './personal-data/personal-data-store';
import { UpcasterRegistry } from './upcasters';

export interface EventStoreSettings {
  pool: Pool;
  /** EVENTSTORE_URL: when set the log lives on EventStoreDB; read models stay in Postgres. */
  eventStoreUrl?: string;
  /** EventStoreDB's MaxAppendSize, as the server is configured (default 1 MiB). */
  eventStoreMaxAppendBytes?: number;
  notifications?: AppendListener;
  upcasters?: UpcasterRegistry;
  /** Event types whose records' personal fields are kept apart from the log (forgettable payloads). */
  personalFields?: PersonalFields;
}

export function createEventStore(settings: EventStoreSettings): EventStore {
  const log = settings.eventStoreUrl
    ? new (esdbEventStore())(settings.eventStoreUrl, { upcasters: settings.upcasters, maxAppendSize: settings.eventStoreMaxAppendBytes })
    : new PostgresEventStore(settings.pool, { notifications: settings.notifications, upcasters: settings.upcasters });
  // The personal-data lists live in the service's PostgreSQL whichever log is used.
  return settings.personalFields && Object.keys(settings.personalFields).length > 0 ? new PersonalDataEventStore(log, settings.pool, settings.personalFields) : log;
}

/**
 * The EventStoreDB adapter's class, loaded when first asked for: its gRPC client takes ~0.2 s of CPU to
 * load, which every `mds` command and every process with its log on PostgreSQL would pay for nothing.
 */
export function esdbEventStore(): typeof EsdbEventStore {
  return (require('./esdb/esdb-event-store') as typeof import('./esdb/esdb-event-store')).EsdbEventStore;
}
