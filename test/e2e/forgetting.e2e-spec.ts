import { PROJECTIONS, rebuildProjection, waitForProjection } from '#mds/projections';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { dumpService } from '../support/dump';
import { storedEvents } from '../support/database';
import { eventually } from '../support/eventually';
import { runCli } from '../support/processes';
import { startDelivery } from '../support/receiver';

type Json = Record<string, any>;

/**
 * Forgetting holds everywhere (issue [8/10]): a customer with events, sales, a campaign event, a
 * datasync datatarget and a webhook delivering their records is forgotten with `mds customers
 * forget`; afterwards the database (log, personal-data store, every read model, outlet log) and the
 * service's logs hold none of their contact details or names, also after every projection is
 * rebuilt; their sale still counts; another customer is untouched.
 */
describe('forgetting a customer: nothing of them stays readable', () => {
  let api: TestApi;
  let token: string;
  let delivery: Awaited<ReturnType<typeof startDelivery>>;
  let receiver: typeof delivery.receiver;
  let statsBefore: unknown;
  const cliOutput: string[] = [];
  const ada = {
    external_id: 'FG-ADA', email: 'Ada.Forgotten@example.com', phone_number: '+358 40 111 9999', first_name: 'Adalind', last_name: 'Forgetmenot',
    street_address: 'Erasure Lane 5', city: 'Vantaa', zip_code: '01300', birth_date: '1980-02-03', cb_token: 'cb-ada-777', tags: ['vip'],
    ACME__loyalty_card: 'LC-ADA-4242', ACME__tier: 'gold',
  };
  const bob = { external_id: 'FG-BOB', email: 'bob.kept@example.com', phone_number: '+358402228888', first_name: 'Bartholomew', last_name: 'Keepsake', tags: ['vip'], ACME__loyalty_card: 'LC-BOB-1111' };
  // What must be gone: e-mail (any case), phone (as sent and normalised: its digits), names, address, birth date, token.
  const adaValues = ['ada.forgotten', '111 9999', '401119999', 'Adalind', 'Forgetmenot', 'Erasure Lane', 'Vantaa', '1980-02-03', 'cb-ada-777', 'LC-ADA-4242'];
  const bobValues = ['bob.kept@example.com', '402228888', 'Bartholomew', 'Keepsake', 'LC-BOB-1111'];

  const send = (method: string, path: string, body?: unknown) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const completed = async (res: { status: number; body: Json }) => {
    expect([res.status, res.body.errors ?? []]).toEqual([200, []]);
    await eventually(async () => expect((await send('GET', `/api/runs/${res.body.run_id}/`)).body.state).toBe('completed'), { timeoutMs: 30_000 });
  };
  const found = (text: string, values: string[]) => values.filter((v) => text.toLowerCase().includes(v.toLowerCase()));
  const logs = () => [...api.rt.logLines, ...cliOutput].join('\n');
  const caughtUp = async () => {
    const head = await api.rt.store.headPosition();
    for (const p of PROJECTIONS) await waitForProjection(api.rt.pool, p.name, head, { timeoutMs: 30_000 });
  };

  beforeAll(async () => {
    api = await startTestApi({
      projections: PROJECTIONS.filter((p) => p.name !== 'access'),
      env: { OUTLET_ALLOW_PRIVATE: 'true', OUTLET_POLL_MS: '20' },
      config: { logLevel: 'debug' },
    });
    token = (await seedUserToken(api.rt, 'forgetter', ['admin'])).token;
    delivery = await startDelivery(api.rt);
    receiver = delivery.receiver;
  });
  afterAll(async () => {
    await delivery?.close();
    await api?.close();
  });

  it('imports them with a datasync datatarget delivering to a webhook: their data is everywhere at first', async () => {
    const target = (await send('POST', '/api/datatargets/', { datatarget_type: 'datasync', datatype: 'customers', name: 'crm' })).body.datatarget;
    const salesTarget = (await send('POST', '/api/datatargets/', { datatarget_type: 'datasync', datatype: 'sales', name: 'erp' })).body.datatarget;
    const outlet = (await send('POST', `/api/datatargets/${target.id}/outlets/`, { outlet_type: 'webhook', request: { url: receiver.url, method: 'POST', format: 'json', content: '{(data)}', is_batched: true } })).body.outlet;
    expect([target.id, salesTarget.id, outlet.id].every(Boolean)).toBe(true);
    // A company field the settings mark personal is kept apart from the log like the built-in ones.
    expect((await send('PATCH', '/api/settings/', { personal_company_fields: ['ACME__loyalty_card'] })).status).toBe(200);
    await completed(await send('POST', '/api/customers/upload/', { customers: [ada, bob] }));
    await completed(await send('POST', '/api/events/upload/', { events: [
      { type: 'BROWSE', date: '2026-03-01T10:00:00Z', email: 'ada.forgotten@example.com', path: '/boots' },
      { type: 'MAIL_SUBSCRIBE', date: '2026-03-01T10:05:00Z', phone_number: '+358401119999', mailing_lists: ['news'] },
      { type: 'BROWSE', date: '2026-03-01T11:00:00Z', email: 'bob.kept@example.com', path: '/hats', first_name: 'Bartholomew' },
      // Naming her by external id alone, with her name and address: forgotten with her too.
      { type: 'BROWSE', date: '2026-03-01T12:00:00Z', customer_id: 'FG-ADA', path: '/gloves', first_name: 'Adalind', street_address: 'Erasure Lane 5' },
    ] }));
    await completed(await send('POST', '/api/sales/upload/', { sales: [
      { sale_external_id: 'FG-S1', sale_date: '2026-03-02T10:00:00Z', sale_email: 'ada.forgotten@example.com', sale_phone_number: '+358401119999', product_id: 'P1', quantity: 2, unit_price: 1250 },
      { sale_external_id: 'FG-S2', sale_date: '2026-03-02T11:00:00Z', sale_email: 'bob.kept@example.com', product_id: 'P1', quantity: 1, unit_price: 1250 },
      // By external id alone, with a company field the settings mark personal (a transaction's field).
      { sale_external_id: 'FG-S3', sale_date: '2026-03-03T11:00:00Z', sale_customer_id: 'FG-ADA', ACME__loyalty_card: 'LC-ADA-4242', product_id: 'P1', quantity: 1, unit_price: 500 },
      { sale_external_id: 'FG-S4', sale_date: '2026-03-03T12:00:00Z', sale_customer_id: 'FG-BOB', ACME__loyalty_card: 'LC-BOB-1111', product_id: 'P1', quantity: 1, unit_price: 700 },
    ] }));
    await completed(await send('POST', '/api/campaigns/upload/', { campaigns: [{ campaign_key: 'FG-C1', kind: 'email', name: 'Spring', state: 'ACTIVE', activated_at: '2026-03-01T09:00:00Z' }] }));
    await completed(await send('POST', '/api/campaigns/events/upload/', { events: [
      { campaign_key: 'FG-C1', type: 'sent', date: '2026-03-01T09:00:00Z', email: 'ada.forgotten@example.com' },
      { campaign_key: 'FG-C1', type: 'sent', date: '2026-03-01T09:00:00Z', email: 'bob.kept@example.com' },
    ] }));
    // Three changes of customers: the two imported, and ada's subscription.
    await eventually(async () => expect((await send('GET', `/api/datatargets/${target.id}/outlets/${outlet.id}/`)).body.outlet.last_delivered_message_number).toBe(3), { timeoutMs: 30_000 });
    await caughtUp();
    expect(found(receiver.received.map((r) => r.body).join('\n'), ['ada.forgotten@example.com', 'Adalind'])).toHaveLength(2);
    const dump = await dumpService(api.rt.db.url);
    expect(found(dump.text, adaValues)).toEqual(adaValues); // the test can see them: it would notice them staying
    expect((await send('GET', '/api/data/customers/?external_id=FG-ADA')).body.customers).toEqual([expect.objectContaining({ first_name: 'Adalind', email: ada.email, ACME__loyalty_card: 'LC-ADA-4242' })]);
    const inLog = (await storedEvents(api.rt.db.url)).map((e) => e.data).join('');
    expect(found(inLog, [...adaValues, ...bobValues])).toEqual([]);
    expect(inLog).toContain('ACME__tier');
    statsBefore = (await send('GET', '/api/campaign/actions/?limit=10')).body.campaigns.find((c: Json) => c.campaign_key === 'FG-C1').stats;
  });

  it('forgets them with `mds customers forget`: the dump and the logs hold nothing of them, the other customer is whole', async () => {
    const env = { DATABASE_URL: api.rt.db.url, MDS_SECRET_KEY: api.rt.config.secretKey, LOG_LEVEL: 'debug' };
    const res = await runCli(['customers', 'forget', 'ADA.FORGOTTEN@example.com'], env);
    cliOutput.push(res.stdout, res.stderr);
    expect([res.code, res.stdout]).toEqual([0, expect.stringMatching(/^forgot customer \d+ \(run [0-9a-f-]+\): their personal data is redaction markers now/)]);
    await caughtUp();
    const dump = await dumpService(api.rt.db.url);
    expect([dump.how, found(dump.text, adaValues)]).toEqual([dump.how, []]);
    expect(found(dump.text, bobValues)).toEqual(bobValues);
    expect(found(logs(), adaValues)).toEqual([]);
    // The log's reader shows markers where her fields were.
    const read = await runCli(['events', 'read', '--limit', '1000'], env);
    expect(read.code).toBe(0);
    expect([found(read.stdout, adaValues), read.stdout]).toEqual([[], expect.stringMatching(/\[forgotten [0-9a-f]{12}\]/)]);
    expect(found(read.stdout, bobValues)).toEqual(bobValues);
    // The erasure's record: who asked and when, and whom only as the marker her records now carry.
    const erasures = read.stdout.trim().split('\n').map((l) => JSON.parse(l) as Json).filter((e) => e.type === 'CustomersImported' && e.data.records.some((r: Json) => r.is_forgotten));
    expect(erasures).toEqual([expect.objectContaining({ metadata: expect.objectContaining({ actor: 'cli', run_id: expect.any(String) }), data: expect.objectContaining({ records: [{ email: expect.stringMatching(/^\[forgotten [0-9a-f]{12}\]$/), is_forgotten: true }] }) })]);
    expect(Date.now() - new Date(erasures[0].createdAt).getTime()).toBeLessThan(120_000);
    // Again: nothing left to forget, and nothing changes.
    const again = await runCli(['customers', 'forget', '+358 40 111 9999'], env);
    cliOutput.push(again.stdout, again.stderr);
    expect([again.code, again.stdout]).toEqual([0, expect.stringMatching(/^no customer has that phone now: nothing to forget/)]);
  });

  it('shows redaction markers where their data was; their sale still counts; the other customer is untouched', async () => {
    const customers = (await send('GET', '/api/data/customers/')).body.customers as Json[];
    expect(customers).toEqual(expect.arrayContaining([{ is_forgotten: true }, expect.objectContaining({ external_id: 'FG-BOB', email: 'bob.kept@example.com', first_name: 'Bartholomew', tags: ['vip'] })]));
    expect(customers).toHaveLength(2);
    const sales = (await send('GET', '/api/data/sales/')).body;
    expect(sales.count).toBe(4);
    expect(sales.sales.map((s: Json) => [s.sale_external_id, s.sale_total])).toEqual(expect.arrayContaining([['FG-S1', 2500], ['FG-S2', 1250], ['FG-S3', 500], ['FG-S4', 700]]));
    expect(sales.sales.find((s: Json) => s.sale_external_id === 'FG-S4')).toEqual(expect.objectContaining({ ACME__loyalty_card: 'LC-BOB-1111' }));
    const events = (await send('GET', '/api/data/events/?limit=100')).body.events as Json[];
    expect(events.filter((e) => e.path === '/hats')).toEqual([expect.objectContaining({ email: 'bob.kept@example.com', first_name: 'Bartholomew' })]);
    expect(found(JSON.stringify(events), adaValues)).toEqual([]);
    // The log's reader and the audit API show markers in place of the values.
    const audit = JSON.stringify((await send('GET', '/api/audit/events/?limit=1000')).body.events);
    expect(found(audit, adaValues)).toEqual([]);
    expect(audit).toMatch(/\[forgotten [0-9a-f]{12}\]/);
    expect(audit).toContain('bob.kept@example.com');
    // The outlet log rebuilds each request from the messages: markers there too.
    const target = (await send('GET', '/api/datatargets/')).body.datatargets.find((t: Json) => t.name === 'crm');
    const outlet = (await send('GET', `/api/datatargets/${target.id}/outlets/`)).body.outlets[0];
    const entry = (await send('GET', `/api/datatargets/${target.id}/outlets/${outlet.id}/log/1/`)).body.entry;
    expect(found(entry.http_request, adaValues)).toEqual([]);
    expect(entry.http_request).toMatch(/\[forgotten [0-9a-f]{12}\]/);
    expect(entry.http_request).toContain('Bartholomew');
    // Campaign statistics still count both people, and all their sales, as before the forgetting.
    const campaign = (await send('GET', '/api/campaign/actions/?limit=10')).body.campaigns.find((c: Json) => c.campaign_key === 'FG-C1');
    expect([campaign.stats.audience_size, campaign.stats.audience_with_sales, campaign.stats.sales.total_sales, campaign.stats.sales.total_revenue]).toEqual([2, 2, 4, 4950]);
    expect({ ...campaign.stats, cache_modified_at: null }).toEqual({ ...(statsBefore as Json), cache_modified_at: null });
  });

  it('keeps them forgotten through a rebuild of every projection; a later import with their e-mail is a new customer', async () => {
    const before = (await api.rt.pool.query(`SELECT c::text AS row FROM customers c ORDER BY customer_id`)).rows;
    const forgottenBefore = (await api.rt.pool.query(`SELECT kind, hash, customer_id FROM forgotten_identifiers ORDER BY 1, 2`)).rows;
    for (const p of api.rt.projections) await rebuildProjection(api.rt.runnerDeps(), p);
    await caughtUp();
    expect((await api.rt.pool.query(`SELECT c::text AS row FROM customers c ORDER BY customer_id`)).rows).toEqual(before);
    expect((await api.rt.pool.query(`SELECT kind, hash, customer_id FROM forgotten_identifiers ORDER BY 1, 2`)).rows).toEqual(forgottenBefore);
    const dump = await dumpService(api.rt.db.url);
    expect(found(dump.text, adaValues)).toEqual([]);
    expect(found(dump.text, bobValues)).toEqual(bobValues);
    expect(found(logs(), adaValues)).toEqual([]);
    expect((await send('GET', '/api/data/sales/')).body.count).toBe(4);
    // Their e-mail (in another case), their phone (as typed differently) and their external id are
    // recognised by the keyed hashes forgetting kept, and the run says what happens; bob's are not.
    const later = await send('POST', '/api/customers/upload/', { customers: [
      { email: ada.email.toUpperCase(), first_name: 'Newcomer' },
      { external_id: 'FG-ADA', phone_number: '+358401119999', first_name: 'Returning' },
      { email: bob.email, first_name: 'Bob again' },
    ] });
    await completed(later);
    expect(later.body.warnings).toEqual([
      { index: 0, field: 'email', code: 'forgotten_identifier', message: 'email belonged to a forgotten customer: this record starts a new customer, with no link to the forgotten one' },
      { index: 1, field: 'external_id', code: 'forgotten_identifier', message: expect.stringContaining('starts a new customer') },
      { index: 1, field: 'phone_number', code: 'forgotten_identifier', message: expect.stringContaining('starts a new customer') },
    ]);
    expect((await send('GET', `/api/runs/${later.body.run_id}/`)).body.warnings).toEqual(later.body.warnings);
    // What was kept is keyed hashes: none of the values, the same count after the rebuild above.
    const kept = (await api.rt.pool.query(`SELECT kind, keyed_hash FROM mds_erased_identifiers ORDER BY kind`)).rows;
    expect(kept.map((r) => r.kind)).toEqual(['email', 'external_id', 'phone']);
    expect(found(JSON.stringify(kept), adaValues)).toEqual([]);
    const customers = (await send('GET', '/api/data/customers/')).body.customers as Json[];
    expect(customers).toHaveLength(4);
    expect(customers.filter((c) => c.is_forgotten)).toEqual([{ is_forgotten: true }]);
    expect(customers.find((c) => c.first_name === 'Returning')).toEqual(expect.objectContaining({ external_id: 'FG-ADA', phone_number: '+358401119999' }));
    expect(customers.find((c) => c.first_name === 'Newcomer')).toEqual(expect.objectContaining({ email: ada.email.toUpperCase() }));
    expect(customers.find((c) => c.first_name === 'Newcomer')).not.toHaveProperty('external_id');
  });
});
