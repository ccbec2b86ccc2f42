import { randomUUID } from 'node:crypto';
import { CUSTOMERS_IMPORTED } from '#mds/customers';
import type { RecordedEvent } from '#mds/event-store';
import { SETTINGS_CHANGED } from '#mds/settings';
import { openProjectionPages, type ProjectionPages } from '#mds/testing/projection-pages';
import { campaignsProjection } from './campaigns.projection';

const event = (type: string, position: number, data: unknown): RecordedEvent => ({
  id: randomUUID(), stream: `s-${position}`, revision: 0, position, type, data, metadata: { schema: 1, timestamp: '2026-03-01T10:00:00.000Z' }, createdAt: '2026-03-01T10:00:00.000Z',
});

// The upstream read models (customers, sales, products) are not built here: a page that waits for
// them fails (it is applied as stopped), unless a case says they are there (upstreamAt).
describe('campaigns projection before any campaign event', () => {
  let pages: ProjectionPages;

  beforeAll(async () => {
    pages = await openProjectionPages(campaignsProjection);
  });

  afterAll(async () => {
    await pages.close();
  });

  // Applied as stopped already: a page that waits for the upstream read models throws at its first look.
  const apply = (events: RecordedEvent[], upstreamAt?: number) => pages.apply(events, { upstreamAt, signal: AbortSignal.abort() });

  it('passes a page of customers with one look, without waiting for the read models it would count them from', async () => {
    await apply([event(CUSTOMERS_IMPORTED, 1, { records: [{ external_id: 'C-1' }] })]);
    expect(pages.sent).toEqual(['SELECT EXISTS (SELECT 1 FROM campaign_events) AS yes']);
  });

  it('still keeps a new time zone from a page with customers in it', async () => {
    await apply([event(CUSTOMERS_IMPORTED, 2, { records: [{ external_id: 'C-2' }] }), event(SETTINGS_CHANGED, 3, { changes: { timezone: 'Europe/Helsinki' } })], 3);
    expect((await pages.client.query(`SELECT timezone FROM "${pages.gen.schemaName}".campaign_settings`)).rows).toEqual([{ timezone: 'Europe/Helsinki' }]);
  });

  it('counts again once there is an audience: a page of customers then waits for the read models', async () => {
    await pages.client.query(`INSERT INTO "${pages.gen.schemaName}".campaign_events (campaign_key, type, identity, at, ext, person, logged_at, position)
      VALUES ('K-1', 'sent', 'i-1', now(), 'C-1', 'x:C-1', now(), 4)`);
    // Stopped before it starts: a page that must wait for the read models gives up at once, saying so.
    await expect(apply([event(CUSTOMERS_IMPORTED, 5, { records: [{ external_id: 'C-3' }] })])).rejects.toThrow('stopped while waiting for read models');
  });
});
