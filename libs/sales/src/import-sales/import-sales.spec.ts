import type { ImportAnswer } from '#mds/imports';
import { importRequest, MemoryEventStore } from '#mds/testing/given';
import { SALES_IMPORTED } from '../sale-import';
import { ImportSalesCommand } from './import-sales.command';
import { ImportSalesHandler } from './import-sales.handler';

describe('importing sale rows', () => {
  it('given no earlier import of s1, when its rows are posted, then they are one transaction in a SalesImported chunk, and a bad row is named', async () => {
    const store = new MemoryEventStore();
    const answer = await new ImportSalesHandler(store, async () => new Map(), async () => new Map()).execute(
      new ImportSalesCommand(importRequest([{ sale_external_id: 's1', sale_date: '2026-03-01T10:00:00Z', sale_customer_id: 'c1', external_id: 'r1', product_id: 'p1', quantity: 2, unit_price: 199 }, { sale_external_id: 's2', external_id: 'r2', quantity: 'many' }])),
    );
    expect(answer).toMatchObject({ accepted: 1, rejected: 1, errors: [{ index: 1, field: 'quantity' }] });
    const chunk = store.appended().find((e) => e.type === SALES_IMPORTED)!;
    expect(chunk.stream).toBe(`import-${(answer as ImportAnswer).run_id}`);
    expect((chunk.data as { records: Array<{ sale_external_id: string }> }).records.map((r) => r.sale_external_id)).toEqual(['s1']);
  });
});
