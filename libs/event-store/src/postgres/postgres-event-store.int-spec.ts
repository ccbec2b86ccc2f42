import { Pool } from 'pg';
import { createPool, PgNotifications, runMigrations } from '#mds/platform';
import { createTestDatabase } from '#mds/testing/database';
import { eventStoreContract } from '../contract/event-store.contract';
import { UpcasterRegistry } from '../upcasters';
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
  it('tells a reader of some event types how far it may move without reading, and wakes it for its own types', async () => {
    const db = await createTestDatabase();
    const pool = createPool(db.url, { max: 4 });
    const notifications = new PgNotifications(db.url, ['mds_events']);
    try {
      await runMigrations(pool, [POSTGRES_EVENT_STORE_MIGRATIONS]);
      await notifications.start();
      const store = new PostgresEventStore(pool, { notifications });
      await store.append('a-1', [{ type: 'Other', data: {} }]);
      const head = await store.headPosition();
      // Nothing announced past the reader: the wait times out with nothing to read.
      expect(await store.waitForTypes(head, ['Mine'], 50)).toEqual({ skipTo: head, read: false });
      // Appends of other types end the wait with the reader moved past them.
      const skipping = store.waitForTypes(head, ['Mine'], 10_000);
      await store.append('b-1', [{ type: 'Other', data: {} }, { type: 'Other2', data: {} }]);
      expect(await skipping).toEqual({ skipTo: head + 2, read: false });
      // An append with one of the reader's types: read from where it stands.
      const reading = store.waitForTypes(head + 2, ['Mine', 'Else'], 10_000);
      await store.append('c-1', [{ type: 'Other', data: {} }, { type: 'Mine', data: {} }]);
      expect(await reading).toEqual({ skipTo: head + 2, read: true });
      // A reader further behind than what was heard (a gap) must read; so must one after a reconnection.
      expect((await store.waitForTypes(0, ['Mine'], 50)).read).toBe(true);
      const afterReconnect = store.waitForTypes(head + 4, ['Mine'], 10_000);
      notifications.emit('reconnected');
      expect(await afterReconnect).toEqual({ skipTo: head + 4, read: true });
      // A reader that needs the data of some types only gets the others without it.
      await store.append('d-1', [{ type: 'Big', data: { records: [1, 2, 3] } }, { type: 'Small', data: { n: 1 } }]);
      const page = await store.readAll({ after: head + 4, withDataOf: ['Small'] });
      expect(page.events.map((e) => [e.type, e.data])).toEqual([['Big', null], ['Small', { n: 1 }]]);
      // A reader that hands some types' data on to SQL gets it as the stored text, the others parsed.
      const raw = await store.readAll({ after: head + 4, rawDataOf: ['Big'] });
      expect(raw.events.map((e) => [e.type, e.data, e.rawData])).toEqual([['Big', null, '{"records": [1, 2, 3]}'], ['Small', { n: 1 }, undefined]]);
      const both = await store.readAll({ after: head + 4, rawDataOf: ['Big'], withDataOf: [] });
      expect(both.events.map((e) => [e.data, e.rawData])).toEqual([[null, '{"records": [1, 2, 3]}'], [null, undefined]]);
      // A type with upcasters is read parsed (and upcast): its stored text is not in the current shape.
      const upcasting = new PostgresEventStore(pool, { upcasters: new UpcasterRegistry().register({ type: 'Big', fromVersion: 1, toVersion: 2, upcast: (d) => ({ ...(d as object), v: 2 }) }) });
      const upcast = await upcasting.readAll({ after: head + 4, rawDataOf: ['Big'], filter: { types: ['Big'] } });
      expect(upcast.events.map((e) => [e.data, e.rawData])).toEqual([[{ records: [1, 2, 3], v: 2 }, undefined]]);
      // A reader whose SQL reads some types' data from the log itself gets them without it, and where it is.
      const inLog = await store.readAll({ after: head + 4, inLogOf: ['Big'], rawDataOf: ['Big', 'Small'] });
      expect(inLog.events.map((e) => [e.type, e.data, e.rawData, e.dataInTable])).toEqual([['Big', null, undefined, 'mds_events'], ['Small', null, '{"n": 1}', undefined]]);
      const { rows } = await pool.query(`SELECT data FROM ${inLog.events[0].dataInTable} WHERE position = $1`, [inLog.events[0].position]);
      expect(rows[0].data).toEqual({ records: [1, 2, 3] });
      // ... unless upcasters change it: then it is read parsed and upcast.
      const upcastInLog = await upcasting.readAll({ after: head + 4, inLogOf: ['Big'], filter: { types: ['Big'] } });
      expect(upcastInLog.events.map((e) => [e.data, e.dataInTable])).toEqual([[{ records: [1, 2, 3], v: 2 }, undefined]]);
    } finally {
      await notifications.close();
      await pool.end();
      await db.drop();
    }
  });

  it('groups concurrent appends into shared transactions, and one failing append does not fail the others', async () => {
    const db = await createTestDatabase();
    const pool = createPool(db.url, { max: 4 });
    try {
      await runMigrations(pool, [POSTGRES_EVENT_STORE_MIGRATIONS]);
      const store = new PostgresEventStore(pool, { maxInFlight: 1 });
      const calls: number[] = [];
      const query = pool.query.bind(pool);
      (pool as unknown as { query: unknown }).query = (text: string, values?: unknown[]) => {
        if (String(text).includes('mds_append_batch')) calls.push(JSON.parse(String(values![0])).length);
        return query(text, values as never);
      };
      // Postgres refuses \u0000 inside jsonb: that append fails on the server, after batching.
      const results = await Promise.allSettled([
        ...Array.from({ length: 20 }, (_, i) => store.append(`batch-${i % 5}`, [{ type: 'Ok', data: { i } }])),
        store.append('batch-bad', [{ type: 'Bad', data: { text: 'nul \u0000 byte' } }]),
        store.append('batch-0', [{ type: 'Ok', data: { late: true } }], { expectedRevision: 0 }),
      ]);
      expect(results.slice(0, 20).every((r) => r.status === 'fulfilled')).toBe(true);
      expect(results[20]).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ message: expect.stringMatching(/unicode|\\u0000/i) }) });
      expect(results[21]).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ name: 'WrongExpectedRevisionError', actual: 3 }) });
      // Twenty-two appends went to the server in far fewer round trips than appends.
      expect(calls[0]).toBe(1);
      expect(Math.max(...calls)).toBeGreaterThan(5);
      const events = (await store.readAll({ limit: 100 })).events;
      expect(events).toHaveLength(20);
      expect(events.map((e) => e.position)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      for (let s = 0; s < 5; s++) expect((await store.readStream(`batch-${s}`)).map((e) => e.revision)).toEqual([0, 1, 2, 3]);
    } finally {
      await pool.end();
      await db.drop();
    }
  });

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

  it('refuses an UPDATE, a DELETE or a TRUNCATE of the log, whoever asks', async () => {
    const db = await createTestDatabase();
    const pool = createPool(db.url, { max: 2 });
    try {
      await runMigrations(pool, [POSTGRES_EVENT_STORE_MIGRATIONS]);
      const store = new PostgresEventStore(pool);
      await store.append('append-only', [{ type: 'Kept', data: { amount: 1 } }]);
      for (const sql of [`UPDATE mds_events SET data = '{"amount": 2}'`, 'DELETE FROM mds_events', 'TRUNCATE mds_events']) {
        await expect(pool.query(sql)).rejects.toMatchObject({ code: '42501', message: expect.stringMatching(/the event log is append-only: (UPDATE|DELETE|TRUNCATE) on mds_events is refused/) });
      }
      expect((await store.readStream('append-only')).map((e) => e.data)).toEqual([{ amount: 1 }]);
    } finally {
      await pool.end();
      await db.drop();
    }
  });
});
