import { importRequest, MemoryEventStore, refusal, settingsChanged } from '#mds/testing/given';
import { IDEMPOTENT_REPLAY, type ImportAnswer } from '#mds/imports';
import { SecretBox } from '#mds/platform';
import { CUSTOMERS_IMPORTED } from '../customers.events';
import { erasedIdentifierText } from '../erased-identifiers';
import { ImportCustomersCommand } from './import-customers.command';
import { ImportCustomersHandler } from './import-customers.handler';

describe('importing customers', () => {
  it("given Finnish settings and the company ACME, when customers are posted, then the valid ones go into the run's stream, phones normalised, the rest named", async () => {
    const store = new MemoryEventStore();
    await store.given('settings', settingsChanged({ default_country: 'FI', company_prefixes: ['ACME'] }));
    const answer = await new ImportCustomersHandler(store).execute(
      new ImportCustomersCommand(importRequest([{ external_id: 'c1', email: 'ada@example.com', phone_number: '040 123 4567', ACME__tier: 'gold' }, { external_id: 'c2', OTHER__x: 1 }, { email: 'nope' }])),
    );
    expect(answer).toMatchObject({ accepted: 1, rejected: 2, errors: [{ index: 1, field: 'OTHER__x', code: 'unknown_company' }, { index: 2, field: 'email', code: 'invalid_email' }] });
    const [run, chunk] = store.appended();
    expect(run).toMatchObject({ stream: `import-${(answer as ImportAnswer).run_id}`, type: 'ImportRunAccepted', data: { kind: 'customers', received: 3, accepted: 1, rejected: 2, chunks: 1 }, metadata: { actor: 'users/ada', run_id: (answer as ImportAnswer).run_id } });
    expect(chunk).toMatchObject({ type: CUSTOMERS_IMPORTED, data: { run_id: (answer as ImportAnswer).run_id, chunk: 1, records: [{ external_id: 'c1', $phone: '+358401234567', ACME__tier: 'gold' }] } });
  });

  it('given an import with an Idempotency-Key, when the same request comes again, then the first answer, and nothing appended again', async () => {
    const store = new MemoryEventStore();
    const handler = new ImportCustomersHandler(store);
    const request = importRequest([{ external_id: 'c1' }], { idempotencyKey: 'key-1' });
    const first = await handler.execute(new ImportCustomersCommand(request));
    store.givenSoFar();
    // The same answer, marked as a replay (the HTTP layer says so in a header).
    expect(await handler.execute(new ImportCustomersCommand(request))).toEqual({ ...first, [IDEMPOTENT_REPLAY]: true });
    expect(store.appended()).toEqual([]);
  });

  it('when ?atomic=true and a record is invalid, or no record is valid, then the request is refused and nothing is appended', async () => {
    const store = new MemoryEventStore();
    const handler = new ImportCustomersHandler(store);
    expect((await refusal(() => handler.execute(new ImportCustomersCommand(importRequest([{ external_id: 'c1' }, { email: 'nope' }], { atomic: true }))))).status).toBe(400);
    expect((await refusal(() => handler.execute(new ImportCustomersCommand(importRequest([{ email: 'nope' }]))))).status).toBe(400);
    expect(store.events).toEqual([]);
  });

  it('given forgetting erased an e-mail, when a record names it again, then it is imported with a warning', async () => {
    const store = new MemoryEventStore();
    const secrets = new SecretBox(Buffer.alloc(32, 3));
    const erased = { any: async () => true, among: async (hashes: string[]) => new Set(hashes.filter((h) => h === secrets.keyedHash(erasedIdentifierText('email', 'ada@example.com')))) };
    const answer = await new ImportCustomersHandler(store, erased, secrets).execute(new ImportCustomersCommand(importRequest([{ external_id: 'c9', email: 'ada@example.com' }])));
    expect(answer.accepted).toBe(1);
    expect(answer.warnings).toEqual([expect.objectContaining({ index: 0, field: 'email', code: 'forgotten_identifier' })]);
  });
});
