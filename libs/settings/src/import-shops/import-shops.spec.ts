import { importRequest, MemoryEventStore } from '#mds/testing/given';
import { SHOPS_IMPORTED } from '../shops';
import { ImportShopsCommand } from './import-shops.command';
import { ImportShopsHandler } from './import-shops.handler';

describe('importing shops', () => {
  it('when shops are posted, then the valid ones are a ShopsImported chunk of the run and one without external_id is named', async () => {
    const store = new MemoryEventStore();
    const answer = await new ImportShopsHandler(store).execute(new ImportShopsCommand(importRequest([{ external_id: 'sh1', name: 'Main street' }, { name: 'no id' }])));
    expect(answer).toMatchObject({ accepted: 1, rejected: 1, errors: [{ index: 1, field: 'external_id', code: 'required' }] });
    expect(store.appended().map((e) => e.type)).toEqual(['ImportRunAccepted', SHOPS_IMPORTED]);
    expect(store.appended()[1].data).toMatchObject({ records: [{ external_id: 'sh1', name: 'Main street' }] });
  });
});
