import type { Pool } from 'pg';
import { EsdbEventStore } from './esdb/esdb-event-store';
import type { EventStore } from './event-store.port';
import { PostgresEventStore, type AppendListener } from './postgres/postgres-event-store';
import { UpcasterRegistry } from './upcasters';

export interface EventStoreSettings {
  pool: Pool;
  /** EVENTSTORE_URL: when set the log lives on EventStoreDB; read models stay in Postgres. */
  eventStoreUrl?: string;
  notifications?: AppendListener;
  upcasters?: UpcasterRegistry;
}

export function createEventStore(settings: EventStoreSettings): EventStore {
  if (settings.eventStoreUrl) return new EsdbEventStore(settings.eventStoreUrl, { upcasters: settings.upcasters });
  return new PostgresEventStore(settings.pool, { notifications: settings.notifications, upcasters: settings.upcasters });
}
