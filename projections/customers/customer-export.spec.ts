import { AppError } from '#mds/platform';
import { customerExportDocument, customerExportLines, type CustomerExport, type CustomerExportSection } from './customer-export';

/** An opened export of customer 7 with one consent change and these items, read as the read models would give them. */
function opened(items: Array<[CustomerExportSection, Record<string, unknown>]>): CustomerExport & { reads: () => number } {
  let reads = 0;
  return {
    customerId: 7,
    externalId: 'C-7',
    customer: { record: { external_id: 'C-7', updated_at: '2026-03-01T10:00:00.000Z' }, changes: [{ position: 3, at: '2026-03-01T10:00:00.000000Z', run_id: 'r1', type: 'import' }] },
    consent: [{ position: 3, at: '2026-03-01T10:00:00.000000Z', run_id: 'r1', type: 'import', consent_source: null, fields: { can_email: { before: null, after: true } } }],
    async *items() {
      for (const item of items) {
        reads++;
        yield item;
      }
    },
    reads: () => reads,
  };
}

const run = { run_id: 'r2', at: '2026-03-02T10:00:00.000000Z' };
const items: Array<[CustomerExportSection, Record<string, unknown>]> = [
  ['events', { record: { id: 1, type: 'BROWSE' }, run }],
  ['sales', { record: { sale_external_id: 'T-1' }, run }],
  ['messages', { datatarget_id: 'd', message_number: 1, message: { a: 1 }, run: { run_id: null, at: null } }],
];

describe("one customer's export", () => {
  it('given consent and three records, when built as JSON, then each goes in its section and count is four', async () => {
    const doc = await customerExportDocument(opened(items));
    expect(doc).toEqual({
      customer_id: 7, external_id: 'C-7', exported_at: expect.stringMatching(/\.\d{6}Z$/), customer: expect.any(Object), consent: [expect.objectContaining({ run_id: 'r1' })],
      events: [items[0][1]], sales: [items[1][1]], campaign_events: [], messages: [items[2][1]], count: 4,
    });
  });

  it('given more records than the cap, when built as JSON, then it is a 406 export_too_large, found without reading the rest', async () => {
    const export3 = opened([...items, ...items]);
    const refusal = await customerExportDocument(export3, 3).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ status: 406, code: 'export_too_large', message: expect.stringContaining('application/x-ndjson') });
    expect(export3.reads()).toBe(3);
    // The cap counts the consent changes too.
    await expect(customerExportDocument(opened([]), 0)).rejects.toMatchObject({ code: 'export_too_large' });
  });

  it('given the same, when streamed as NDJSON, then no cap: a header, the customer, a line a record, and an end line counting them', async () => {
    let text = '';
    for await (const chunk of customerExportLines(opened([...items, ...items]))) text += chunk;
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.section)).toEqual(['export', 'customer', 'consent', 'events', 'sales', 'messages', 'events', 'sales', 'messages', 'end']);
    expect(lines[0]).toEqual({ section: 'export', customer_id: 7, external_id: 'C-7', exported_at: expect.any(String) });
    // Times in the answers' form: RFC 3339 UTC with microseconds.
    expect(lines[1]).toEqual({ section: 'customer', record: { external_id: 'C-7', updated_at: '2026-03-01T10:00:00.000000Z' }, changes: expect.any(Array) });
    expect(lines.at(-1)).toEqual({ section: 'end', count: 7 });
  });
});
