import { MemoryEventStore, refusal } from '#mds/testing/given';
import { CUSTOMER_DATA_EXPORTED, customerExportStream } from '../customers.events';
import { RecordCustomerExportCommand } from './record-customer-export.command';
import { RecordCustomerExportHandler } from './record-customer-export.handler';

describe('recording an export of a customer', () => {
  it('given a customer id, when an auditor exports the customer, then the log gets who, how and the numeric id, nothing else', async () => {
    const store = new MemoryEventStore();
    await new RecordCustomerExportHandler(store).execute(new RecordCustomerExportCommand(120003, 'json', 'users/auditor', 'token-1', 'req-1'));
    expect(store.appended()).toEqual([
      { stream: customerExportStream(120003), type: CUSTOMER_DATA_EXPORTED, data: { customer_id: 120003, format: 'json' }, metadata: expect.objectContaining({ actor: 'users/auditor', token_id: 'token-1', request_id: 'req-1' }) },
    ]);
  });

  it('given the same customer exported twice, then both are recorded, one after the other in its stream', async () => {
    const store = new MemoryEventStore();
    const handler = new RecordCustomerExportHandler(store);
    await handler.execute(new RecordCustomerExportCommand(7, 'json', 'cli'));
    await handler.execute(new RecordCustomerExportCommand(7, 'ndjson', 'cli'));
    expect(store.appended().map((e) => [e.stream, e.data])).toEqual([
      ['customer-export-7', { customer_id: 7, format: 'json' }],
      ['customer-export-7', { customer_id: 7, format: 'ndjson' }],
    ]);
  });

  it('refuses anything but a numeric customer id (an external id or an e-mail never enters the log this way)', async () => {
    const store = new MemoryEventStore();
    const handler = new RecordCustomerExportHandler(store);
    for (const id of [0, -1, 1.5, Number.NaN, 'C-1001' as unknown as number, 'anna@example.com' as unknown as number]) {
      expect(await refusal(() => handler.execute(new RecordCustomerExportCommand(id, 'json', 'cli')))).toMatchObject({ status: 400, code: 'invalid_request' });
    }
    expect(store.appended()).toEqual([]);
  });
});
