import { PgNotifications, createPool, runMigrations } from '#mds/platform';
import { POSTGRES_EVENT_STORE_MIGRATIONS, PostgresEventStore, type EventStore } from '#mds/event-store';
import { SETTINGS_CHANGED, SETTINGS_STREAM } from '#mds/settings';
import { createTestDatabase, type TestDatabase } from '#mds/testing/database';
import { SETTINGS_CHANNEL, SettingsReadModel } from './settings.read-model';

// The settings an API process keeps: read from the log once, forgotten on an announced change.
describe('SettingsReadModel', () => {
  let db: TestDatabase;
  let pool: ReturnType<typeof createPool>;
  let store: EventStore;
  let reads: number;
  let counted: EventStore;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url, { max: 4 });
    await runMigrations(pool, [POSTGRES_EVENT_STORE_MIGRATIONS]);
    store = new PostgresEventStore(pool);
    // The real store, its stream reads counted.
    counted = Object.create(store, { readStream: { value: (...args: Parameters<EventStore['readStream']>) => (reads++, store.readStream(...args)) } }) as EventStore;
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });
  beforeEach(() => (reads = 0));

  const change = async (changes: Record<string, unknown>) => {
    const events = await store.readStream(SETTINGS_STREAM);
    await store.append(SETTINGS_STREAM, [{ type: SETTINGS_CHANGED, data: { changes, by: 'users/test', at: new Date().toISOString() } }], {
      expectedRevision: events.length === 0 ? 'no_stream' : events[events.length - 1].revision,
    });
  };

  it('reads the log on every call unless told to keep, then once until it forgets', async () => {
    const settings = new SettingsReadModel({ store: counted, pool });
    await settings.current();
    await settings.current();
    expect(reads).toBe(2);
    settings.keepFor(60_000);
    await change({ default_country: 'FI' });
    expect((await settings.current()).default_country).toBe('FI');
    await change({ default_country: 'SE' });
    // Kept: the change is not seen until it is forgotten.
    expect([(await settings.current()).default_country, reads]).toEqual(['FI', 3]);
    settings.forget();
    expect([(await settings.current()).default_country, reads]).toEqual(['SE', 4]);
  });

  it('does not keep a read that a forget overtook', async () => {
    const settings = new SettingsReadModel({ store: counted, pool });
    settings.keepFor(60_000);
    const inFlight = settings.current();
    settings.forget();
    await inFlight;
    await settings.current();
    expect(reads).toBe(2);
  });

  it('announces a change on SETTINGS_CHANNEL, and forgets its own first', async () => {
    const listening = new PgNotifications(db.url, [SETTINGS_CHANNEL]);
    await listening.start();
    const heard = new Promise<void>((resolve) => listening.once(SETTINGS_CHANNEL, () => resolve()));
    const settings = new SettingsReadModel({ store: counted, pool });
    settings.keepFor(60_000);
    await settings.current();
    await change({ default_country: 'NL' });
    await settings.changed();
    expect((await settings.current()).default_country).toBe('NL');
    await heard;
    await listening.close();
    expect(reads).toBe(2);
  });
});
