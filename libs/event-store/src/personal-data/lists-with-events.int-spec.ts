import { randomUUID } from 'node:crypto';
import { createPool, runMigrations } from '#mds/platform';
import { createTestDatabase, type TestDatabase } from '#mds/testing/database';
import { WrongExpectedRevisionError } from '../event-store.errors';
import type { NewEvent } from '../event-store.port';
import { POSTGRES_EVENT_STORE_MIGRATIONS, PostgresEventStore } from '../postgres/postgres-event-store';
import { PERSONAL_DATA_MIGRATIONS, PersonalDataEventStore, personalCommitment } from './personal-data-store';

// With the log in the same PostgreSQL, an append's personal-data lists are written by the append's
// own statement: there exactly when the events are, settled, committed to by the events' metadata.
describe('personal-data lists written with their events (log on PostgreSQL)', () => {
  let db: TestDatabase;
  let pool: ReturnType<typeof createPool>;
  let store: PersonalDataEventStore;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url, { max: 8 });
    await runMigrations(pool, [POSTGRES_EVENT_STORE_MIGRATIONS, PERSONAL_DATA_MIGRATIONS]);
    store = new PersonalDataEventStore(new PostgresEventStore(pool), pool, { Chunk: ['email'] }, { sweepEveryMs: 3_600_000 });
  });
  afterAll(async () => {
    await store.close();
    await pool.end();
    await db.drop();
  });

  const chunk = (email: string, id?: string): NewEvent => ({ id, type: 'Chunk', data: { records: [{ external_id: email.split('@')[0], email }] } });
  const lists = async (email: string) =>
    (
      await pool.query<{ event_id: string; unsettled: boolean; salt: string; records: unknown }>(
        `SELECT event_id, unsettled_at IS NOT NULL AS unsettled, salt, records FROM mds_personal_data WHERE records::text LIKE $1`,
        [`%${email}%`],
      )
    ).rows;

  it('writes the list with the event, settled, under the salt the event commits to; the log holds no e-mail', async () => {
    const stream = `import-${randomUUID()}`;
    await store.append(stream, [chunk('with.event@example.com')], { expectedRevision: 'no_stream' });
    const [list] = await lists('with.event@example.com');
    expect(list).toMatchObject({ unsettled: false, records: [{ email: 'with.event@example.com' }] });
    const { rows } = await pool.query(`SELECT id, data::text, metadata->>'personal_commitment' AS commitment FROM mds_events WHERE stream = $1`, [stream]);
    expect(rows).toHaveLength(1);
    expect(rows[0].id).toBe(list.event_id);
    expect(rows[0].data).not.toContain('with.event@example.com');
    expect(rows[0].commitment).toBe(personalCommitment(list.salt, { records: list.records as Record<string, unknown>[] }));
  });

  it('writes no list for an append the log refuses, alone or beside one it records in the same batch', async () => {
    const taken = `import-${randomUUID()}`;
    await store.append(taken, [chunk('first@example.com')]);
    const refused = store.append(taken, [chunk('refused@example.com')], { expectedRevision: 'no_stream' });
    const recorded = store.append(`import-${randomUUID()}`, [chunk('beside@example.com')], { expectedRevision: 'no_stream' });
    await expect(refused).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await recorded;
    expect(await lists('refused@example.com')).toEqual([]);
    expect(await lists('beside@example.com')).toHaveLength(1);
  });

  it('keeps the first list of events appended again with the same ids (a retry): their commitment stays true', async () => {
    const stream = `import-${randomUUID()}`;
    const id = randomUUID();
    await store.append(stream, [chunk('retried@example.com', id)], { expectedRevision: 'no_stream' });
    const [first] = await lists('retried@example.com');
    const again = await store.append(stream, [chunk('retried@example.com', id)], { expectedRevision: 'no_stream' });
    expect(again.duplicate).toBe(true);
    const after = await lists('retried@example.com');
    expect(after).toEqual([first]);
    const { rows } = await pool.query(`SELECT metadata->>'personal_commitment' AS commitment FROM mds_events WHERE id = $1`, [id]);
    expect(rows[0].commitment).toBe(personalCommitment(first.salt, { records: first.records as Record<string, unknown>[] }));
  });

  /** Records the text of every statement sent through the pool until `restore`; `query` sends one unrecorded. */
  const recordStatements = () => {
    const statements: string[] = [];
    const query = pool.query.bind(pool);
    (pool as { query: unknown }).query = (sql: string, ...rest: unknown[]) => (statements.push(sql), (query as (...a: unknown[]) => unknown)(sql, ...rest));
    return { statements, query, restore: () => ((pool as { query: unknown }).query = query) };
  };

  it("reads a page's erasure epoch with the page, by the same statement, and leaves it off a page without personal fields", async () => {
    const stream = `import-${randomUUID()}`;
    const { position } = await store.append(stream, [chunk('epoch@example.com')], { expectedRevision: 'no_stream' });
    const { statements, query, restore } = recordStatements();
    try {
      const epoch = async () => Number((await query<{ epoch: string }>('SELECT epoch FROM mds_personal_epoch')).rows[0].epoch);
      const before = await epoch();
      const page = await store.readAll({ after: position - 1, limit: 1 });
      expect(page.personalEpoch).toBe(before);
      // Read by the page's statement (then its lists), not by one of its own.
      expect(statements.filter((q) => q.includes('mds_personal_epoch'))).toEqual([expect.stringContaining('FROM mds_events')]);
      expect(statements).toHaveLength(2);
      // A forgetting moves the epoch; the next page says so.
      await query('BEGIN; SELECT mds_personal_erasure_begin(); COMMIT');
      expect((await store.readAll({ after: position - 1, limit: 1 })).personalEpoch).toBe(before + 1);
      await store.append(`other-${randomUUID()}`, [{ type: 'Other', data: { n: 1 } }]);
      expect((await store.readAll({ after: position, limit: 1 })).personalEpoch).toBeUndefined();
    } finally {
      restore();
    }
  });

  it('reads a stream without what is kept apart when asked for its kept data only, and reads no list for it', async () => {
    const stream = `import-${randomUUID()}`;
    await store.append(stream, [chunk('kept.only@example.com')], { expectedRevision: 'no_stream' });
    const { statements, restore } = recordStatements();
    try {
      const [kept] = await store.readStream(stream, { direction: 'backwards', limit: 1, keptOnly: true });
      expect(kept.data).toEqual({ records: [{ external_id: 'kept.only' }] });
      expect(statements.filter((q) => q.includes('mds_personal_data'))).toEqual([]);
      const [whole] = await store.readStream(stream, { direction: 'backwards', limit: 1 });
      expect(whole.data).toEqual({ records: [{ external_id: 'kept.only', email: 'kept.only@example.com' }] });
    } finally {
      restore();
    }
  });
});
