import { importRequest, MemoryEventStore, settingsChanged } from '#mds/testing/given';
import { EVENTS_IMPORTED } from '../event-import';
import { ImportEventsCommand } from './import-events.command';
import { ImportEventsHandler } from './import-events.handler';

describe('importing customer events', () => {
  /** The read-model ports: event 7 exists; no sale is known. */
  const handler = (store: MemoryEventStore) => new ImportEventsHandler(store, async (ids) => new Set(ids.filter((id) => id === 7)), async () => new Set<string>());

  it('given the custom type LOYALTY_SCAN, when events are posted, then built-in and custom types are accepted and an unknown type is named', async () => {
    const store = new MemoryEventStore();
    await store.given('settings', settingsChanged({ custom_event_types: ['LOYALTY_SCAN'] }));
    const answer = await handler(store).execute(
      new ImportEventsCommand(importRequest([{ type: 'BROWSE', customer_id: 'c1', date: '2026-03-01T10:00:00Z', path: '/shoes' }, { type: 'LOYALTY_SCAN', customer_id: 'c1', date: '2026-03-01T10:00:00Z' }, { type: 'NOPE', customer_id: 'c1', date: '2026-03-01T10:00:00Z' }])),
    );
    expect(answer).toMatchObject({ accepted: 2, rejected: 1, errors: [{ index: 2, field: 'type', code: 'unknown_event_type' }] });
    const chunk = store.appended().find((e) => e.type === EVENTS_IMPORTED)!;
    expect((chunk.data as { records: Array<{ type: string }> }).records.map((r) => r.type)).toEqual(['BROWSE', 'LOYALTY_SCAN']);
  });

  it('when deletions name events, then one that exists is accepted and one that does not is named', async () => {
    const store = new MemoryEventStore();
    const answer = await handler(store).execute(new ImportEventsCommand(importRequest([{ id: 7, is_deleted: true }, { id: 8, is_deleted: true }])));
    expect(answer).toMatchObject({ accepted: 1, rejected: 1, errors: [{ index: 1, field: 'id', code: 'not_found' }] });
  });

  it('when an event names no customer, then it is refused as missing an identifier', async () => {
    const store = new MemoryEventStore();
    const answer = await handler(store).execute(new ImportEventsCommand(importRequest([{ type: 'BROWSE', date: '2026-03-01T10:00:00Z', path: '/' }, { type: 'BROWSE', email: 'ada@example.com', date: '2026-03-01T10:00:00Z', path: '/' }])));
    expect(answer.errors).toEqual([expect.objectContaining({ index: 0, code: 'missing_identifier' })]);
  });
});
