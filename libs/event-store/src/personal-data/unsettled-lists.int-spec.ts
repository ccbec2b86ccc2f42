import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { createPool, runMigrations } from '#mds/platform';
import { createTestDatabase, type TestDatabase } from '#mds/testing/database';
import { startEsdbDouble, type EsdbDouble } from '#mds/testing/esdb-double';
import { eventually } from '#mds/testing/eventually';
import { EsdbEventStore } from '../esdb/esdb-event-store';
import { EventStoreUnavailableError, WrongExpectedRevisionError } from '../event-store.errors';
import type { NewEvent } from '../event-store.port';
import { PERSONAL_DATA_MIGRATIONS, PersonalDataEventStore } from './personal-data-store';

// The personal fields of an append whose outcome is unknown stay (its events may be in the log) until
// a sweep, after a grace period, finds the events there (the lists settle) or not (they go).
describe('personal-data lists of appends whose outcome is unknown (log on the EventStoreDB double)', () => {
  const GRACE_MS = 2_000;
  let db: TestDatabase;
  let pool: ReturnType<typeof createPool>;
  let double: EsdbDouble;
  let store: PersonalDataEventStore;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url, { max: 4 });
    await runMigrations(pool, [PERSONAL_DATA_MIGRATIONS]);
    double = await startEsdbDouble();
    // Sweeps only when the test asks (none started by appends within the test's time).
    store = new PersonalDataEventStore(new EsdbEventStore(double.url), pool, { Chunk: ['email'] }, { unsettledGraceMs: GRACE_MS, sweepEveryMs: 3_600_000 });
  });
  afterAll(async () => {
    await store.close();
    await double.close();
    await pool.end();
    await db.drop();
  });

  const chunk = (email: string, id?: string): NewEvent => ({ id, type: 'Chunk', data: { records: [{ external_id: email.split('@')[0], email }] } });
  const kept = async (email: string) =>
    (await pool.query<{ stream: string | null; unsettled: boolean }>(`SELECT unsettled_stream AS stream, unsettled_at IS NOT NULL AS unsettled FROM mds_personal_data WHERE records::text LIKE $1`, [`%${email}%`])).rows;

  it('keeps the list of an append the log refused before writing but reported as unknown, and deletes it once the grace period has passed', async () => {
    const stream = `import-${randomUUID()}`;
    double.failNext(3, { code: status.UNAVAILABLE }, 'append');
    await expect(store.append(stream, [chunk('never.written@example.com')], { expectedRevision: 'no_stream' })).rejects.toMatchObject({
      constructor: EventStoreUnavailableError,
      outcomeUnknown: true,
    });
    expect(await kept('never.written@example.com')).toEqual([{ stream, unsettled: true }]);
    // Within the grace period the sweep leaves it: the append may still be retried with the same ids.
    expect(await store.sweepUnsettled()).toEqual({ settled: 0, deleted: 0 });
    expect(await kept('never.written@example.com')).toHaveLength(1);
    await eventually(async () => {
      expect(await store.sweepUnsettled()).toEqual({ settled: 0, deleted: 1 });
      expect(await kept('never.written@example.com')).toEqual([]);
    });
  });

  it('keeps the list of an append that was recorded though its outcome was reported unknown, and settles it', async () => {
    const stream = `import-${randomUUID()}`;
    // Written, and then the server went down: the adapter could not ask the log.
    double.failAfterWrite(1, { drop: true, stayDown: true }, stream);
    await expect(store.append(stream, [chunk('written.anyway@example.com')], { expectedRevision: 'no_stream' })).rejects.toMatchObject({ outcomeUnknown: true });
    await double.restart();
    expect(double.events.filter((e) => e.stream === stream)).toHaveLength(1);
    // The event is in the log and reads whole: its list was not deleted.
    const [read] = await eventually(() => store.readStream(stream));
    expect(read.data).toEqual({ records: [{ external_id: 'written.anyway', email: 'written.anyway@example.com' }] });
    expect(await kept('written.anyway@example.com')).toEqual([{ stream, unsettled: true }]);
    await eventually(async () => expect(await store.sweepUnsettled()).toEqual({ settled: 1, deleted: 0 }));
    expect(await kept('written.anyway@example.com')).toEqual([{ stream: null, unsettled: false }]);
  });

  it('marks a list again when a retry with the same ids comes, so a sweep after the first attempt\'s grace period leaves it', async () => {
    const stream = `import-${randomUUID()}`;
    const id = randomUUID();
    const send = () => store.append(stream, [chunk('retried.later@example.com', id)], { expectedRevision: 'no_stream' });
    double.failNext(3, { code: status.UNAVAILABLE }, 'append');
    await expect(send()).rejects.toMatchObject({ outcomeUnknown: true });
    const overdue = async () => Number((await pool.query(`SELECT count(*) FROM mds_personal_data WHERE event_id = $1 AND unsettled_at <= now() - make_interval(secs => $2)`, [id, GRACE_MS / 1000])).rows[0].count);
    await eventually(async () => expect(await overdue()).toBe(1));
    // The retry's outcome is unknown too; its mark is its own, recent: the sweep (which deletes only
    // lists whose mark is as old as it saw) leaves the list to it.
    double.failNext(3, { code: status.UNAVAILABLE }, 'append');
    await expect(send()).rejects.toMatchObject({ outcomeUnknown: true });
    expect(await overdue()).toBe(0);
    expect(await store.sweepUnsettled()).toEqual({ settled: 0, deleted: 0 });
    await send();
    expect(await kept('retried.later@example.com')).toEqual([{ stream: null, unsettled: false }]);
    expect((await store.readStream(stream))[0].data).toEqual({ records: [{ external_id: 'retried.later', email: 'retried.later@example.com' }] });
  });

  it('deletes at once the list of an append refused outright whose ids it made up; one whose ids the caller chose goes by the sweep', async () => {
    const stream = `import-${randomUUID()}`;
    await store.append(stream, [{ type: 'Header', data: {} }]);
    await expect(store.append(stream, [chunk('refused.made.up@example.com')], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(await kept('refused.made.up@example.com')).toEqual([]);
    await expect(store.append(stream, [chunk('refused.chosen@example.com', randomUUID())], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(await kept('refused.chosen@example.com')).toEqual([{ stream, unsettled: true }]);
    await eventually(async () => {
      await store.sweepUnsettled();
      expect(await kept('refused.chosen@example.com')).toEqual([]);
    });
  });

  it('sweeps from later appends, of any event', async () => {
    const appending = new PersonalDataEventStore(new EsdbEventStore(double.url), pool, { Chunk: ['email'] }, { unsettledGraceMs: GRACE_MS, sweepEveryMs: 0 });
    try {
      double.failNext(3, { code: status.UNAVAILABLE }, 'append');
      await expect(appending.append(`import-${randomUUID()}`, [chunk('swept.by.append@example.com')])).rejects.toMatchObject({ outcomeUnknown: true });
      expect(await kept('swept.by.append@example.com')).toHaveLength(1);
      await eventually(
        async () => {
          await appending.append(`other-${randomUUID()}`, [{ type: 'Header', data: {} }]);
          expect(await kept('swept.by.append@example.com')).toEqual([]);
        },
        { intervalMs: 200 },
      );
    } finally {
      await appending.close();
    }
  });

  it('settles the lists of an append that succeeds at once', async () => {
    const stream = `import-${randomUUID()}`;
    await store.append(stream, [chunk('plain.success@example.com')], { expectedRevision: 'no_stream' });
    expect(await kept('plain.success@example.com')).toEqual([{ stream: null, unsettled: false }]);
  });
});
