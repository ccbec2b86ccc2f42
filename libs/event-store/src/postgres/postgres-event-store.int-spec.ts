import { Pool } from 'pg';
import { createPool, PgNotifications, runMigrations } from '../../../platform/src';
import { createTestDatabase } from '../../../../test/support/database';
import { eventStoreContract } from '../contract/event-store.contract';
import { POSTGRES_EVENT_STORE_MIGRATIONS, PostgresEventStore } from './postgres-event-store';

eventStoreContract('postgres', async () => {
  const db = await createTestDatabase();
  const pool: Pool = createPool(db.url, { max: 12 });
  await runMigrations(pool, [POSTGRES_EVENT_STORE_MIGRATIONS]);
  const notifications = new PgNotifications(db.url, ['mds_events']);
  await notifications.start();
  const store = new PostgresEventStore(pool, { notifications });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  return {
    store,
    withUpcasters: (upcasters) => new PostgresEventStore(pool, { notifications, upcasters }),
    async appendInSlowTransaction(stream, events, beforeMs, afterMs) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await sleep(beforeMs);
        await store.appendWithin(client, stream, events);
        // The transaction stays open after the positions were assigned: the case a reader must not skip.
        await sleep(afterMs);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      } finally {
        client.release();
      }
    },
    async teardown() {
      await notifications.close();
      await pool.end();
      await db.drop();
    },
  };
});

describe('postgres event log specifics', () => {
  it('keeps positions gap-free when appends fail', async () => {
    const db = await createTestDatabase();
    const pool = createPool(db.url);
    try {
      await runMigrations(pool, [POSTGRES_EVENT_STORE_MIGRATIONS]);
      const store = new PostgresEventStore(pool);
      await store.append('gap-a', [{ type: 'A', data: {} }]);
      await expect(store.append('gap-a', [{ type: 'B', data: {} }], { expectedRevision: 'no_stream' })).rejects.toThrow();
      await store.append('gap-b', [{ type: 'C', data: {} }]);
      const page = await store.readAll();
      expect(page.events.map((e) => e.position)).toEqual([1, 2]);
      expect(await store.headPosition()).toBe(2);
    } finally {
      await pool.end();
      await db.drop();
    }
  });
});
