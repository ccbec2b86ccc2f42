import { importRequest, MemoryEventStore } from '#mds/testing/given';
import { CAMPAIGN_EVENTS_IMPORTED } from '../campaigns.events';
import { ImportCampaignEventsCommand } from './import-campaign-events.command';
import { ImportCampaignEventsHandler } from './import-campaign-events.handler';

describe('importing campaign events', () => {
  it('when campaign events are posted, then known types are a CampaignEventsImported chunk and an unknown one is named', async () => {
    const store = new MemoryEventStore();
    const answer = await new ImportCampaignEventsHandler(store).execute(
      new ImportCampaignEventsCommand(importRequest([{ campaign_key: 'spring', type: 'open', customer_id: 'c1', date: '2026-03-01T10:00:00Z' }, { campaign_key: 'spring', type: 'bogus', customer_id: 'c1' }])),
    );
    expect(answer).toMatchObject({ accepted: 1, rejected: 1, errors: [{ index: 1, field: 'type', code: 'unknown_campaign_event_type' }] });
    expect(store.appended().find((e) => e.type === CAMPAIGN_EVENTS_IMPORTED)?.data).toMatchObject({ records: [{ campaign_key: 'spring', type: 'open', customer_id: 'c1' }] });
  });
});
