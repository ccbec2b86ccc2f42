import { EVENTS_IMPORTED } from '#mds/activity';
import { CUSTOMERS_IMPORTED, customerMergeModel as model } from '#mds/customers';
import type { RecordedEvent } from '#mds/event-store';
import { consentChange } from './customer-consent';
import { applyChange, changeOf, type FoldedChange } from './customer-history';

/** A log event of one record (n 1), as the fold reads it back. */
const logged = (type: string, record: Record<string, unknown>, position: number, runId = `run-${position}`): RecordedEvent => ({
  id: `e${position}`, stream: `import-${runId}`, revision: 1, position, type, createdAt: `2026-03-0${position}T10:00:00.000Z`,
  data: { run_id: runId, chunk: 1, records: [record] }, metadata: { schema: 1, timestamp: '', run_id: runId, actor: 'users/ada' },
});

/** The fold over these events, as foldCustomer does it (customer 10001). */
function given(...events: RecordedEvent[]): FoldedChange[] {
  let customer: model.Customer | undefined;
  return events.map((event) => {
    const step = changeOf(event, 1)!;
    const before = customer;
    customer = applyChange(customer, step, 10001, event)!;
    return { event, n: 1, step, before, after: customer };
  });
}

describe('a customer\'s consent history', () => {
  it('given an import setting permissions and lists with a source, then it is one consent change: each field before (null: none) and after, its run and source', () => {
    const [first] = given(logged(CUSTOMERS_IMPORTED, { external_id: 'A', can_email: true, can_sms: false, mailing_lists: ['weekly'], first_name: 'Ada', consent_source: 'signup-form' }, 1));
    expect(consentChange(first)).toEqual({
      position: 1, at: '2026-03-01T10:00:00.000000Z', run_id: 'run-1', type: 'import', consent_source: 'signup-form',
      fields: { can_email: { before: null, after: true }, can_sms: { before: null, after: false }, mailing_lists: { before: null, after: ['weekly'] } },
    });
  });

  it('given the same permission sent again and other fields changed, then no consent change; a withdrawal without a source has source null', () => {
    const changes = given(
      logged(CUSTOMERS_IMPORTED, { external_id: 'A', can_email: true }, 1),
      logged(CUSTOMERS_IMPORTED, { external_id: 'A', can_email: true, city: 'Oulu', consent_source: 'again' }, 2),
      logged(CUSTOMERS_IMPORTED, { external_id: 'A', can_email: false }, 3),
    );
    expect(changes.map(consentChange).map((c) => c && [c.position, c.consent_source, c.fields])).toEqual([
      [1, null, { can_email: { before: null, after: true } }],
      undefined,
      [3, null, { can_email: { before: true, after: false } }],
    ]);
  });

  it('given subscription events, then each is a consent change naming its event type; leaving every list withdraws the e-mail permission too', () => {
    const changes = given(
      logged(CUSTOMERS_IMPORTED, { external_id: 'A', email: 'a@example.com' }, 1),
      logged(EVENTS_IMPORTED, { type: 'MAIL_SUBSCRIBE', date: '2026-03-02T09:00:00Z', customer_id: 'A', email: 'a@example.com', mailing_lists: ['offers'] }, 2),
      logged(EVENTS_IMPORTED, { type: 'MAIL_UNSUBSCRIBE', date: '2026-03-03T09:00:00Z', customer_id: 'A', mailing_lists: ['_'] }, 3),
    );
    expect(changes.map(consentChange)).toEqual([
      undefined,
      expect.objectContaining({ type: 'subscription', event_type: 'MAIL_SUBSCRIBE', consent_source: null, fields: { can_email: { before: null, after: true }, mailing_lists: { before: null, after: ['offers'] } } }),
      expect.objectContaining({ type: 'subscription', event_type: 'MAIL_UNSUBSCRIBE', fields: { can_email: { before: true, after: false }, mailing_lists: { before: ['offers'], after: [] } } }),
    ]);
  });
});
