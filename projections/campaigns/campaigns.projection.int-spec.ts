import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { CUSTOMERS_IMPORTED } from '#mds/customers';
import type { RecordedEvent } from '#mds/event-store';
import { SETTINGS_CHANGED } from '#mds/settings';
import { openTestRuntime, type TestRuntime } from '#mds/testing/runtime';
import { createGeneration, type Generation } from '../runtime/catalog';
import { openDedicatedClient } from '../runtime/projection-runner';
import type { ProjectionTx } from '../runtime/projection';
import { campaignsProjection } from './campaigns.projection';

const event = (type: string, position: number, data: unknown): RecordedEvent => ({
  id: randomUUID(), stream: `s-${position}`, revision: 0, position, type, data, metadata: { schema: 1, timestamp: '2026-03-01T10:00:00.000Z' }, createdAt: '2026-03-01T10:00:00.000Z',
});

// The upstream read models (customers, sales, products) are not built here: a page that waits for
// them fails (it is applied as stopped), unless a case says they are there (upstreamAt).
describe('campaigns projection before any campaign event', () => {
  let rt: TestRuntime;
  let gen: Generation;
  let client: Client;
  let sent: string[];

  beforeAll(async () => {
    rt = await openTestRuntime({ projections: [campaignsProjection] });
    gen = await createGeneration(rt.pool, campaignsProjection, { onlyIfNone: true });
    client = await openDedicatedClient(rt.runnerDeps(), 'test', { derivedState: true });
  });

  afterAll(async () => {
    await client.end();
    await rt.close();
  });

  // Applied as stopped already: a page that waits for the upstream read models throws at its first look.
  async function apply(events: RecordedEvent[], upstreamAt?: number): Promise<void> {
    sent = [];
    const query = ((sql: string, params?: unknown[]) => {
      sent.push(sql);
      return client.query(sql, params);
    }) as ProjectionTx['query'];
    await client.query(`BEGIN; SET LOCAL search_path = "${gen.schemaName}", public`);
    try {
      await campaignsProjection.apply(events, { query, schema: gen.schemaName, position: events.at(-1)!.position, upstreamAt, signal: AbortSignal.abort() });
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
  }

  it('passes a page of customers with one look, without waiting for the read models it would count them from', async () => {
    await apply([event(CUSTOMERS_IMPORTED, 1, { records: [{ external_id: 'C-1' }] })]);
    expect(sent).toEqual(['SELECT EXISTS (SELECT 1 FROM campaign_events) AS yes']);
  });

  it('still keeps a new time zone from a page with customers in it', async () => {
    await apply([event(CUSTOMERS_IMPORTED, 2, { records: [{ external_id: 'C-2' }] }), event(SETTINGS_CHANGED, 3, { changes: { timezone: 'Europe/Helsinki' } })], 3);
    expect((await client.query(`SELECT timezone FROM "${gen.schemaName}".campaign_settings`)).rows).toEqual([{ timezone: 'Europe/Helsinki' }]);
  });

  it('counts again once there is an audience: a page of customers then waits for the read models', async () => {
    await client.query(`INSERT INTO "${gen.schemaName}".campaign_events (campaign_key, type, identity, at, ext, person, logged_at, position)
      VALUES ('K-1', 'sent', 'i-1', now(), 'C-1', 'x:C-1', now(), 4)`);
    // Stopped before it starts: a page that must wait for the read models gives up at once, saying so.
    await expect(apply([event(CUSTOMERS_IMPORTED, 5, { records: [{ external_id: 'C-3' }] })])).rejects.toThrow('stopped while waiting for read models');
  });
});
