import { randomUUID } from 'node:crypto';
import { CUSTOMERS_IMPORTED } from '#mds/customers';
import type { RecordedEvent } from '#mds/event-store';
import { openProjectionPages, type ProjectionPages } from '#mds/testing/projection-pages';
import { customersProjection } from '../customers.projection';

let position = 0;
/** A customer chunk as the log holds it: each record with its normalised phone beside it ($phone). */
const chunk = (...records: Array<{ ext?: string; phone: string; name: string }>): RecordedEvent => {
  position++;
  return {
    id: randomUUID(), stream: `import-${position}`, revision: 0, position, type: CUSTOMERS_IMPORTED,
    data: { records: records.map((r) => ({ ...(r.ext ? { external_id: r.ext } : {}), phone_number: r.phone, $phone: r.phone, first_name: r.name })) },
    metadata: { schema: 1, timestamp: '2026-03-01T10:00:00.000Z' }, createdAt: '2026-03-01T10:00:00.000Z',
  };
};

// Pages of chunks whose records share phones, as a lagging projection gathers them when customers are
// sent again: what the merge sends for them, and the customers it makes.
describe('customers merge of a page whose records share phones', () => {
  let pages: ProjectionPages;

  beforeAll(async () => {
    pages = await openProjectionPages(customersProjection);
  });

  afterAll(async () => {
    await pages.close();
  });

  const apply = (...events: RecordedEvent[]) => pages.apply(events);
  const sentOwnRepeats = () => pages.sent.some((s) => s.includes('CREATE TEMP TABLE own'));
  const storedFree = () => pages.sent.some((s) => /^UPDATE cb SET phone_free/.test(s));
  const customers = async (phone: string) =>
    (await pages.client.query(`SELECT external_id, data->>'first_name' AS name FROM "${pages.gen.schemaName}".customers WHERE phone = $1 ORDER BY customer_id`, [phone])).rows;

  it('applies records with external ids of their own that share a phone in one wave, without looking for repeats of one customer', async () => {
    await apply(chunk({ ext: 'A-1', phone: '+358401000001', name: 'One' }, { ext: 'A-2', phone: '+358401000002', name: 'Two' }),
      chunk({ ext: 'A-3', phone: '+358401000001', name: 'Three' }, { ext: 'A-4', phone: '+358401000002', name: 'Four' }));
    expect([sentOwnRepeats(), storedFree()]).toEqual([false, false]);
    expect(await customers('+358401000001')).toEqual([{ external_id: 'A-1', name: 'One' }, { external_id: 'A-3', name: 'Three' }]);
    expect(await customers('+358401000002')).toEqual([{ external_id: 'A-2', name: 'Two' }, { external_id: 'A-4', name: 'Four' }]);
  });

  it('still orders them where a customer without an external id has the phone: the first takes that customer', async () => {
    await apply(chunk({ phone: '+358401000003', name: 'Guest' }));
    await apply(chunk({ ext: 'B-1', phone: '+358401000003', name: 'Bee' }), chunk({ ext: 'B-2', phone: '+358401000003', name: 'Bea' }));
    expect([sentOwnRepeats(), storedFree()]).toEqual([false, true]);
    expect(await customers('+358401000003')).toEqual([{ external_id: 'B-1', name: 'Bee' }, { external_id: 'B-2', name: 'Bea' }]);
  });

  it('still looks for repeats of one customer when an external id repeats', async () => {
    await apply(chunk({ ext: 'C-1', phone: '+358401000004', name: 'Cee' }), chunk({ ext: 'C-1', phone: '+358401000004', name: 'Cecilia' }));
    expect(sentOwnRepeats()).toBe(true);
    expect(await customers('+358401000004')).toEqual([{ external_id: 'C-1', name: 'Cecilia' }]);
  });
});
