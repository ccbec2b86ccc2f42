import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { EsdbDouble } from './esdb-double';

export interface TestDatabase {
  url: string;
  name: string;
  /** With MDS_TEST_EVENT_LOG=esdb-double: the EventStoreDB double holding this database's event log. */
  eventStoreUrl?: string;
  drop(): Promise<void>;
}

/**
 * The one switch that runs a suite with the event log on EventStoreDB (the wire-level double of
 * esdb-double.ts, a test fixture): every test database gets a double of its own, which every runtime
 * and every child process on that database uses (EVENTSTORE_URL). Set by `npm test`'s second e2e run.
 */
export const LOG_ON_ESDB_DOUBLE = process.env.MDS_TEST_EVENT_LOG === 'esdb-double';
const doubles = new Map<string, EsdbDouble>();

/** EVENTSTORE_URL for a process on this database: its double when the log is on one. */
export function eventLogEnv(databaseUrl: string | undefined): { EVENTSTORE_URL?: string } {
  const double = databaseUrl ? doubles.get(databaseUrl) : undefined;
  return double ? { EVENTSTORE_URL: double.url } : {};
}

export interface StoredEventText {
  stream: string;
  type: string;
  /** The data as the log holds it (on EventStoreDB: the bytes sent, staged parts included). */
  data: string;
  metadata: string;
}

/** Every event the database's log holds, as stored, wherever the log is: mds_events, or the double. */
export async function storedEvents(databaseUrl: string): Promise<StoredEventText[]> {
  const double = doubles.get(databaseUrl);
  if (double) {
    return double.events.filter((e) => !e.stream.startsWith('$')).map((e) => ({ stream: e.stream, type: e.type, data: e.data.toString('utf8'), metadata: e.customMetadata.toString('utf8') }));
  }
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<StoredEventText>(`SELECT stream, type, data::text AS data, metadata::text AS metadata FROM mds_events ORDER BY position`)).rows;
  } finally {
    await client.end();
  }
}

function adminUrl(): string {
  const url = process.env.MDS_TEST_ADMIN_URL ?? process.env.DATABASE_URL;
  if (!url) throw new Error('no test database: run the tests with `npm test` (it starts PostgreSQL) or set DATABASE_URL');
  return url;
}

/** A fresh, empty database on the test server (or on `server`, an admin URL), so test files never see each other's data. */
export async function createTestDatabase(prefix = 'mds_test', server = adminUrl()): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  // Loaded only when asked for: the double needs the gRPC packages, which plain runs do not load.
  const double = LOG_ON_ESDB_DOUBLE ? await (await import('./esdb-double')).startEsdbDouble() : undefined;
  if (double) doubles.set(url.toString(), double);
  return {
    url: url.toString(),
    name,
    eventStoreUrl: double?.url,
    async drop() {
      if (double) {
        doubles.delete(url.toString());
        await double.close();
      }
      const c = new Client({ connectionString: server });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
