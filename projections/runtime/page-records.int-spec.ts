import { createPool, runMigrations } from '#mds/platform';
import { PERSONAL_DATA_MIGRATIONS, PersonalDataEventStore, PostgresEventStore, POSTGRES_EVENT_STORE_MIGRATIONS, type EventStore, type RecordedEvent } from '#mds/event-store';
import { createTestDatabase, type TestDatabase } from '#mds/testing/database';
import { EventDataNeeded, dataOf, pageEvents, pageRecords } from './projection';

// Import chunks (and whole events) reach a projection's SQL in several ways; each must give the same rows in the same order.
describe('pageRecords and pageEvents', () => {
  let db: TestDatabase;
  let pool: ReturnType<typeof createPool>;
  let store: EventStore;
  let head = 0;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url, { max: 2 });
    await runMigrations(pool, [POSTGRES_EVENT_STORE_MIGRATIONS, PERSONAL_DATA_MIGRATIONS]);
    // Chunks' `s` is personal: kept apart from the log, and back in every way of reading.
    store = new PersonalDataEventStore(new PostgresEventStore(pool), pool, { Chunk: ['s'] });
    await store.append('import-a', [{ type: 'Chunk', data: { records: [{ id: 'a1', n: 1 }, { id: 'a2', tags: ['x', 'y'] }] } }]);
    await store.append('import-b', [{ type: 'Other', data: { records: [{ id: 'o1' }] } }, { type: 'Chunk', data: { records: [{ id: 'b1', s: "it's \"quoted\" ✓" }] } }]);
    head = (await store.readAll()).position;
  });

  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  async function records(events: RecordedEvent[], reshape?: (e: RecordedEvent) => unknown[] | undefined) {
    const page = pageRecords(events, '$1', reshape);
    const { rows } = await pool.query(`SELECT c.position, r.n, r.rec FROM ${page.from} ORDER BY c.position, r.n`, [page.json]);
    return { rows: rows.map((r) => [Number(r.position), Number(r.n), r.rec]), page };
  }

  it('gives the same records whether the chunks are left in the log, read as text or parsed', async () => {
    const inLog = await store.readAll({ inLogOf: ['Chunk'], rawDataOf: ['Chunk'] });
    const raw = await store.readAll({ rawDataOf: ['Chunk'] });
    const parsed = await store.readAll();
    expect(inLog.events.filter((e) => e.type === 'Chunk').every((e) => e.dataInTable !== undefined && e.data === null)).toBe(true);
    const fromLog = await records(inLog.events);
    // Left in the log: only positions travel; the statement reads the chunks by position.
    expect(fromLog.page.json).not.toContain('"a1"'); // (an event's uuid may hold the letters)
    expect(fromLog.page.from).toContain('mds_events');
    expect(fromLog.rows).toEqual([
      [1, 1, { id: 'a1', n: 1 }],
      [1, 2, { id: 'a2', tags: ['x', 'y'] }],
      [2, 1, { id: 'o1' }],
      [3, 1, { id: 'b1', s: "it's \"quoted\" ✓" }],
    ]);
    expect((await records(raw.events)).rows).toEqual(fromLog.rows);
    const fromParsed = await records(parsed.events);
    expect(fromParsed.rows).toEqual(fromLog.rows);
    // Nothing left in the log: the statement does not name it.
    expect(fromParsed.page.from).not.toContain('mds_events');
    expect(head).toBe(3);
    // The personal field is in none of the log's rows: each way above got it back from beside the log.
    expect(Number((await pool.query(`SELECT count(*) FROM mds_events WHERE data::text LIKE '%quoted%'`)).rows[0].count)).toBe(0);
  });

  it('uses reshaped records where given, and refuses to parse data that was left in the log', async () => {
    const inLog = await store.readAll({ inLogOf: ['Chunk'] });
    const { rows } = await records(inLog.events, (e) => (e.position === 1 ? [{ id: 'reshaped' }] : undefined));
    expect(rows.map((r) => (r[2] as { id: string }).id)).toEqual(['reshaped', 'o1', 'b1']);
    // A projection that reads such data in Node after all gets it read again with all data (EventDataNeeded).
    expect(() => dataOf(inLog.events[0])).toThrow(EventDataNeeded);
  });

  it('gives each event with its data whether it was left in the log, read as text or parsed', async () => {
    const rows = async (events: RecordedEvent[]) => {
      const page = pageEvents(events, '$1');
      const { rows } = await pool.query(`SELECT e.ord, e.position, e.stream, e.data FROM ${page.from} ORDER BY e.ord`, [page.json]);
      return { rows: rows.map((r) => [r.ord, Number(r.position), r.stream, r.data]), page };
    };
    const inLog = await rows((await store.readAll({ inLogOf: ['Chunk'], rawDataOf: ['Chunk'] })).events);
    expect(inLog.page.json).not.toContain('"a1"'); // (an event's uuid may hold the letters)
    expect(inLog.rows).toEqual([
      [0, 1, 'import-a', { records: [{ id: 'a1', n: 1 }, { id: 'a2', tags: ['x', 'y'] }] }],
      [1, 2, 'import-b', { records: [{ id: 'o1' }] }],
      [2, 3, 'import-b', { records: [{ id: 'b1', s: "it's \"quoted\" ✓" }] }],
    ]);
    expect((await rows((await store.readAll({ rawDataOf: ['Chunk'] })).events)).rows).toEqual(inLog.rows);
    const parsed = await rows((await store.readAll()).events);
    expect(parsed.rows).toEqual(inLog.rows);
    expect(parsed.page.from).not.toContain('mds_events');
  });
});
