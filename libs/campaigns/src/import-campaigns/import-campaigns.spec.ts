import { importRequest, MemoryEventStore } from '#mds/testing/given';
import { CAMPAIGNS_IMPORTED } from '../campaigns.events';
import { ImportCampaignsCommand } from './import-campaigns.command';
import { ImportCampaignsHandler } from './import-campaigns.handler';

describe('importing campaigns', () => {
  it('when campaigns are posted, then the valid ones are a CampaignsImported chunk and one without campaign_key is named', async () => {
    const store = new MemoryEventStore();
    const answer = await new ImportCampaignsHandler(store).execute(new ImportCampaignsCommand(importRequest([{ campaign_key: 'spring', kind: 'email', name: 'Spring' }, { name: 'no key' }])));
    expect(answer).toMatchObject({ accepted: 1, rejected: 1, errors: [{ index: 1, field: 'campaign_key', code: 'required' }] });
    expect(store.appended().find((e) => e.type === CAMPAIGNS_IMPORTED)?.data).toMatchObject({ records: [{ campaign_key: 'spring', kind: 'email', name: 'Spring' }] });
  });
});
