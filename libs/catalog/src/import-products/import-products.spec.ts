import type { ImportAnswer } from '#mds/imports';
import { importRequest, MemoryEventStore } from '#mds/testing/given';
import { PRODUCTS_IMPORTED } from '../product-import';
import { ImportProductsCommand } from './import-products.command';
import { ImportProductsHandler } from './import-products.handler';

describe('importing products', () => {
  it('when product rows are posted, then the valid ones are one ProductsImported chunk of the run, and a row without external_id is named', async () => {
    const store = new MemoryEventStore();
    const answer = await new ImportProductsHandler(store).execute(new ImportProductsCommand(importRequest([{ external_id: 'p1', name: 'Pen', price: 199 }, { name: 'no id' }])));
    expect(answer).toMatchObject({ accepted: 1, rejected: 1, errors: [{ index: 1, field: 'external_id', code: 'required' }] });
    expect(store.appended().map((e) => [e.stream, e.type])).toEqual([
      [`import-${(answer as ImportAnswer).run_id}`, 'ImportRunAccepted'],
      [`import-${(answer as ImportAnswer).run_id}`, PRODUCTS_IMPORTED],
    ]);
    expect(store.appended()[1].data).toMatchObject({ records: [{ external_id: 'p1', name: 'Pen', price: 199 }] });
    expect(store.appends[0].options).toEqual({ expectedRevision: 'no_stream' });
  });
});
