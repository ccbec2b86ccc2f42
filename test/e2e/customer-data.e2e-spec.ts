import { PROJECTIONS, rebuildProjection, waitForProjection } from '#mds/projections';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { storedEvents } from '../support/database';
import { eventually } from '../support/eventually';
import { runCli } from '../support/processes';

type Json = Record<string, any>;

/**
 * A person's data on request, and their consent with its history (issue [21]): one customer's
 * export (JSON, NDJSON, `mds customers export`) holds their profile, consent, events, sales, campaign
 * events and the datatarget messages naming them, each with its run, and nobody else's; only
 * auditors and admins get it, and each export is in the log with who and when and no personal data.
 * The consent history lists each change of a permission or of the mailing lists with its run and
 * `consent_source`. Once the person is forgotten both are 404 and hold nothing of them.
 */
describe("a customer's data and consent, on request", () => {
  let api: TestApi;
  let admin: string;
  let auditor: string;
  let auditorId: string;
  let staff: string;
  const runs: Record<string, string> = {};
  const cora = {
    external_id: 'CD-CORA', email: 'Cora.Dataholder@example.net', phone_number: '+358 40 555 1234', first_name: 'Corabell', last_name: 'Exportson',
    city: 'Datapolis', cb_token: 'cb-cora-5150', can_email: true, mailing_lists: ['weekly'], consent_source: 'kiosk-Corabell-7731',
  };
  const dan = { external_id: 'CD-DAN', email: 'dan.other@example.net', first_name: 'Danforth', can_email: true };
  // What is Cora's, and must be gone once she is forgotten (her external id aside: the shop's key).
  const coraValues = ['cora.dataholder', '555 1234', '405551234', 'Corabell', 'Exportson', 'Datapolis', 'cb-cora-5150', 'kiosk-Corabell'];
  const danValues = ['dan.other@example.net', 'Danforth', 'CD-DAN', 'CD-T2'];
  const ISO_MICROS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

  const call = (token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const completed = async (name: string, res: { status: number; body: Json }) => {
    expect([res.status, res.body.errors ?? []]).toEqual([200, []]);
    runs[name] = res.body.run_id;
    await eventually(async () => expect((await call(admin, 'GET', `/api/runs/${res.body.run_id}/`)).body.state).toBe('completed'), { timeoutMs: 30_000 });
  };
  const caughtUp = async () => {
    const head = await api.rt.store.headPosition();
    for (const p of PROJECTIONS) await waitForProjection(api.rt.pool, p.name, head, { timeoutMs: 30_000 });
  };
  const found = (text: string, values: string[]) => values.filter((v) => text.toLowerCase().includes(v.toLowerCase()));
  const cliEnv = () => ({ DATABASE_URL: api.rt.db.url, MDS_SECRET_KEY: api.rt.config.secretKey, LOG_LEVEL: 'warn' });
  const exports = async () => (await call(admin, 'GET', '/api/audit/events/?type=CustomerDataExported&limit=1000')).body.events as Json[];
  const ndjson = (text: string) => text.trimEnd().split('\n').map((l) => JSON.parse(l) as Json);
  /** An export's records by section, whichever form it came in: what the forms must agree on. */
  const sections = (doc: Json) => ({ customer: doc.customer, consent: doc.consent, events: doc.events, sales: doc.sales, campaign_events: doc.campaign_events, messages: doc.messages, count: doc.count });
  const fromLines = (lines: Json[]) => {
    const doc: Json = { consent: [], events: [], sales: [], campaign_events: [], messages: [] };
    for (const { section, ...rest } of lines) {
      if (section === 'export') Object.assign(doc, rest);
      else if (section === 'customer') doc.customer = rest;
      else if (section === 'end') doc.count = rest.count;
      else doc[section].push(rest);
    }
    return doc;
  };

  beforeAll(async () => {
    api = await startTestApi({ projections: PROJECTIONS.filter((p) => p.name !== 'access'), config: { logLevel: 'debug' } });
    admin = (await seedUserToken(api.rt, 'cd-admin', ['admin'])).token;
    const seeded = await seedUserToken(api.rt, 'cd-auditor', ['auditor']);
    auditor = seeded.token;
    auditorId = seeded.userId;
    staff = (await seedUserToken(api.rt, 'cd-staff', ['staff'])).token;

    const datasync = (await call(admin, 'POST', '/api/datatargets/', { datatarget_type: 'datasync', datatype: 'customers', name: 'crm' })).body.datatarget;
    const posted = (await call(admin, 'POST', '/api/datatargets/', { datatarget_type: 'messages', name: 'notes' })).body.datatarget;
    expect([datasync.id, posted.id].every(Boolean)).toBe(true);
    await completed('first', await call(admin, 'POST', '/api/customers/upload/', { customers: [cora, dan] }));
    // A permission given on the phone; a name change that is no consent change.
    await completed('second', await call(admin, 'POST', '/api/customers/upload/', { customers: [{ external_id: 'CD-CORA', can_sms: 'yes', consent_source: 'phone-call' }] }));
    await completed('rename', await call(admin, 'POST', '/api/customers/upload/', { customers: [{ external_id: 'CD-CORA', last_name: 'Exportson', language: 'fi' }] }));
    await completed('events', await call(admin, 'POST', '/api/events/upload/', { events: [
      { type: 'MAIL_UNSUBSCRIBE', date: '2026-05-01T10:00:00Z', email: 'cora.dataholder@example.net', mailing_lists: ['weekly'] },
      { type: 'BROWSE', date: '2026-05-01T11:00:00Z', customer_id: 'CD-CORA', path: '/boots' },
      { type: 'BROWSE', date: '2026-05-01T12:00:00Z', email: dan.email, path: '/hats' },
      { type: 'BROWSE', date: '2026-05-01T13:00:00Z', phone_number: '+358405551234', path: '/withdrawn' },
    ] }));
    // A deleted event is still data the service holds of her: exported, marked, with the run that brought it in.
    const withdrawn = (await call(admin, 'GET', '/api/data/events/?path=%2Fwithdrawn')).body.events;
    expect(withdrawn).toHaveLength(1);
    await completed('deletion', await call(admin, 'POST', '/api/events/upload/', { events: [{ id: withdrawn[0].id, is_deleted: true }] }));
    const bulk = await call(admin, 'POST', '/api/data/query/', { datatype: 'customers', match: { external_id: 'CD-CORA' }, update: { can_post: true, consent_source: 'postal-campaign' } });
    expect(bulk.status).toBe(200);
    runs.bulk = bulk.body.run_id;
    await eventually(async () => expect((await call(admin, 'GET', `/api/runs/${runs.bulk}/`)).body.state).toBe('completed'), { timeoutMs: 30_000 });
    await completed('sales', await call(admin, 'POST', '/api/sales/upload/', { sales: [
      { sale_external_id: 'CD-T1', sale_date: '2026-05-02T10:00:00Z', sale_customer_id: 'CD-CORA', product_id: 'P1', quantity: 2, unit_price: 1250 },
      { sale_external_id: 'CD-T2', sale_date: '2026-05-02T11:00:00Z', sale_email: dan.email, product_id: 'P1', quantity: 1, unit_price: 990 },
      { sale_external_id: 'CD-T3', sale_date: '2026-05-03T11:00:00Z', sale_phone_number: '+358405551234', product_id: 'P2', quantity: 1, unit_price: 500 },
    ] }));
    await completed('campaigns', await call(admin, 'POST', '/api/campaigns/upload/', { campaigns: [{ campaign_key: 'CD-C1', kind: 'email', name: 'Spring', state: 'ACTIVE', activated_at: '2026-05-01T09:00:00Z' }] }));
    await completed('campaign_events', await call(admin, 'POST', '/api/campaigns/events/upload/', { events: [
      { campaign_key: 'CD-C1', type: 'sent', date: '2026-05-01T09:00:00Z', email: cora.email },
      { campaign_key: 'CD-C1', type: 'sent', date: '2026-05-01T09:00:00Z', email: dan.email },
    ] }));
    const post = await call(admin, 'POST', `/api/datatargets/${posted.id}/post/`, { messages: [{ note: 'called back', contact: { email: cora.email } }, { note: 'other', contact: dan.email }] });
    expect(post.body).toEqual({ first_message_number: 1, messages_count: 2 });
    await caughtUp();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  describe('consent history', () => {
    it('lists each change of a permission or mailing list, oldest first, with its run, time and consent_source', async () => {
      const res = await call(staff, 'GET', '/api/data/customers/CD-CORA/consent/');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        consent: [
          { position: expect.any(Number), at: expect.stringMatching(ISO_MICROS), run_id: runs.first, type: 'import', consent_source: 'kiosk-Corabell-7731',
            fields: { can_email: { before: null, after: true }, mailing_lists: { before: null, after: ['weekly'] } } },
          { position: expect.any(Number), at: expect.stringMatching(ISO_MICROS), run_id: runs.second, type: 'import', consent_source: 'phone-call', fields: { can_sms: { before: null, after: true } } },
          { position: expect.any(Number), at: expect.stringMatching(ISO_MICROS), run_id: runs.events, type: 'subscription', event_type: 'MAIL_UNSUBSCRIBE', consent_source: null,
            fields: { mailing_lists: { before: ['weekly'], after: [] } } },
          { position: expect.any(Number), at: expect.stringMatching(ISO_MICROS), run_id: runs.bulk, type: 'bulk_update', consent_source: 'postal-campaign', fields: { can_post: { before: null, after: true } } },
        ],
        count: 4,
        next_url: null,
      });
      const positions = res.body.consent.map((c: Json) => c.position);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      // consent_source is about the change: never on the customer.
      const customer = (await call(staff, 'GET', '/api/data/customers/CD-CORA/')).body;
      expect(customer).toEqual(expect.objectContaining({ can_email: true, can_sms: true, can_post: true, mailing_lists: [] }));
      expect(customer).not.toHaveProperty('consent_source');
      expect((await call(staff, 'GET', '/api/data/customers/CD-DAN/consent/')).body.consent).toEqual([
        expect.objectContaining({ run_id: runs.first, consent_source: null, fields: { can_email: { before: null, after: true } } }),
      ]);
    });

    it('pages with limit and from, following next_url to null', async () => {
      const all = (await call(staff, 'GET', '/api/data/customers/CD-CORA/consent/')).body.consent;
      const seen: Json[] = [];
      const urls: string[] = [];
      for (let next: string | null = '/api/data/customers/CD-CORA/consent/?limit=3'; next; ) {
        urls.push(next);
        const page = await call(staff, 'GET', next);
        expect(page.status).toBe(200);
        expect(page.body.count).toBe(page.body.consent.length);
        seen.push(...page.body.consent);
        next = page.body.next_url;
      }
      expect(urls).toEqual(['/api/data/customers/CD-CORA/consent/?limit=3', expect.stringMatching(/^\/api\/data\/customers\/CD-CORA\/consent\/\?(?=.*limit=3)(?=.*from=3)/)]);
      expect(seen).toEqual(all);
    });

    it('refuses what it does not take: unknown ids 404, bad or unknown parameters 400', async () => {
      const unknown = await call(staff, 'GET', '/api/data/customers/NOBODY/consent/');
      expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
      for (const query of ['limit=0', 'limit=1001', 'from=-1', 'from=x', 'sort=at']) {
        const res = await call(staff, 'GET', `/api/data/customers/CD-CORA/consent/?${query}`);
        expect([query, res.status, res.body.error?.code]).toEqual([query, 400, 'invalid_request']);
      }
      expect((await api.call('/api/data/customers/CD-CORA/consent/')).status).toBe(401);
    });
  });

  describe('export', () => {
    let document: Json;

    it('gives an auditor one JSON document: profile, consent, events, sales, campaign events and messages, each with its run, and nobody else', async () => {
      const res = await call(auditor, 'GET', '/api/data/customers/CD-CORA/export/');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      document = res.body;
      const customerId = (await call(admin, 'GET', '/api/data/customers/CD-CORA/')).body.id;
      expect(document).toEqual({
        customer_id: customerId,
        external_id: 'CD-CORA',
        exported_at: expect.stringMatching(ISO_MICROS),
        customer: {
          // Her e-mail as the unsubscription sent it last (a subscription event updates the contact it names).
          record: expect.objectContaining({ id: customerId, external_id: 'CD-CORA', email: 'cora.dataholder@example.net', phone_number: cora.phone_number, first_name: 'Corabell', city: 'Datapolis', cb_token: 'cb-cora-5150', can_email: true, can_sms: true, can_post: true }),
          changes: [
            { position: expect.any(Number), at: expect.stringMatching(ISO_MICROS), actor: expect.stringMatching(/^users\//), run_id: runs.first, type: 'import' },
            expect.objectContaining({ run_id: runs.second, type: 'import' }),
            expect.objectContaining({ run_id: runs.rename, type: 'import' }),
            expect.objectContaining({ run_id: runs.events, type: 'subscription' }),
            expect.objectContaining({ run_id: runs.bulk, type: 'bulk_update' }),
          ],
        },
        consent: (await call(admin, 'GET', '/api/data/customers/CD-CORA/consent/')).body.consent,
        events: expect.any(Array),
        sales: expect.any(Array),
        campaign_events: expect.any(Array),
        messages: expect.any(Array),
        count: expect.any(Number),
      });
      expect(document.customer.record).not.toHaveProperty('consent_source');
      const run = (id: string) => ({ run_id: id, at: expect.stringMatching(ISO_MICROS) });
      expect(document.events).toEqual(expect.arrayContaining([
        { record: expect.objectContaining({ type: 'MAIL_UNSUBSCRIBE', email: 'cora.dataholder@example.net' }), run: run(runs.events) },
        { record: expect.objectContaining({ type: 'BROWSE', customer_id: 'CD-CORA', path: '/boots' }), run: run(runs.events) },
        { record: expect.objectContaining({ type: 'BROWSE', path: '/withdrawn', is_deleted: true }), run: run(runs.events) },
      ]));
      expect(document.events).toHaveLength(3);
      expect(document.events.filter((e: Json) => e.record.is_deleted)).toHaveLength(1);
      expect(document.sales.map((s: Json) => [s.record.sale_external_id, s.run.run_id])).toEqual([['CD-T1', runs.sales], ['CD-T3', runs.sales]]);
      expect(document.campaign_events).toEqual([{ record: expect.objectContaining({ campaign_key: 'CD-C1', type: 'sent', email: 'cora.dataholder@example.net' }), run: run(runs.campaign_events) }]);
      // Datasync messages of her changes (the run of each), and the one posted message naming her (no run: a post).
      const datasync = document.messages.filter((m: Json) => m.run?.run_id);
      expect(datasync.length).toBeGreaterThanOrEqual(3);
      expect(datasync.every((m: Json) => Object.values(runs).includes(m.run.run_id) && typeof m.message_number === 'number' && m.datatarget_id)).toBe(true);
      expect(datasync.map((m: Json) => m.run.run_id)).toEqual(expect.arrayContaining([runs.first, runs.second, runs.bulk]));
      expect(document.messages.filter((m: Json) => !m.run?.run_id)).toEqual([
        { datatarget_id: expect.any(String), message_number: 1, message: { note: 'called back', contact: { email: cora.email } }, run: { run_id: null, at: expect.stringMatching(ISO_MICROS) } },
      ]);
      expect(document.count).toBe(document.consent.length + document.events.length + document.sales.length + document.campaign_events.length + document.messages.length);
      expect([res.text.includes('Dan'), found(res.text, danValues)]).toEqual([false, []]);
      // Every time in it is RFC 3339 UTC with microseconds.
      const times = res.text.match(/"\d{4}-\d\d-\d\dT[^"]*"/g) ?? [];
      expect(times.length).toBeGreaterThan(10);
      expect(times.filter((t) => !ISO_MICROS.test(JSON.parse(t)))).toEqual([]);
    });

    it('streams the same as NDJSON when asked: a header line, the customer, a line a record, an end line with the count', async () => {
      const res = await call(admin, 'GET', '/api/data/customers/CD-CORA/export/', undefined, { accept: 'application/x-ndjson' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
      expect(res.text.endsWith('\n')).toBe(true);
      const lines = ndjson(res.text);
      expect(lines[0]).toEqual({ section: 'export', customer_id: document.customer_id, external_id: 'CD-CORA', exported_at: expect.stringMatching(ISO_MICROS) });
      expect(lines[1].section).toBe('customer');
      expect(lines.at(-1)).toEqual({ section: 'end', count: document.count });
      expect(lines.length).toBe(document.count + 3);
      expect(sections(fromLines(lines))).toEqual(sections(document));
      // application/ndjson too; q=0 is a refusal of it, so JSON.
      expect((await call(admin, 'GET', '/api/data/customers/CD-CORA/export/', undefined, { accept: 'application/ndjson' })).headers.get('content-type')).toMatch(/^application\/x-ndjson/);
      expect((await call(admin, 'GET', '/api/data/customers/CD-CORA/export/', undefined, { accept: 'application/x-ndjson;q=0, application/json' })).headers.get('content-type')).toMatch(/^application\/json/);
    });

    it('is for auditors and admins only: 403 without audit:read, 401 without a token, 404 for an unknown id; none of these is recorded', async () => {
      const before = (await exports()).length;
      const refused = await call(staff, 'GET', '/api/data/customers/CD-CORA/export/');
      expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
      expect(found(refused.text, coraValues)).toEqual([]);
      expect((await api.call('/api/data/customers/CD-CORA/export/')).status).toBe(401);
      const unknown = await call(auditor, 'GET', '/api/data/customers/NOBODY/export/');
      expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
      expect((await call(auditor, 'GET', '/api/data/customers/CD-CORA/export/?format=csv')).status).toBe(400);
      expect((await exports()).length).toBe(before);
    });

    it('records each export in the log: who and when, the numeric customer id and the form, nothing personal', async () => {
      const recorded = await exports();
      expect(recorded.map((e) => [e.data, e.metadata.actor])).toEqual([
        [{ customer_id: document.customer_id, format: 'json' }, `users/${auditorId}`],
        [{ customer_id: document.customer_id, format: 'ndjson' }, expect.stringMatching(/^users\//)],
        [{ customer_id: document.customer_id, format: 'ndjson' }, expect.stringMatching(/^users\//)],
        [{ customer_id: document.customer_id, format: 'json' }, expect.stringMatching(/^users\//)],
      ]);
      expect(recorded[0]).toEqual(expect.objectContaining({ stream: `customer-export-${document.customer_id}`, type: 'CustomerDataExported', created_at: expect.stringMatching(ISO_MICROS) }));
      expect(recorded[0].metadata).toEqual(expect.objectContaining({ token_id: expect.any(String), request_id: expect.any(String) }));
      // As stored: the event holds no identifier of the person, not even the external id.
      const stored = (await storedEvents(api.rt.db.url)).filter((e) => e.type === 'CustomerDataExported');
      expect(stored).toHaveLength(4);
      const text = stored.map((e) => `${e.stream} ${e.data} ${e.metadata}`).join('\n');
      expect(found(text, [...coraValues, 'CD-CORA', cora.email])).toEqual([]);
      expect(Object.keys(JSON.parse(stored[0].data)).sort()).toEqual(['customer_id', 'format']);
    });

    it('`mds customers export` prints the same document, or NDJSON, recorded as the cli; an unknown id fails', async () => {
      const before = (await exports()).length;
      const json = await runCli(['customers', 'export', 'CD-CORA'], cliEnv());
      expect([json.code, json.stderr]).toEqual([0, '']);
      const printed = JSON.parse(json.stdout) as Json;
      expect(sections(printed)).toEqual(sections(document));
      expect(printed.exported_at).toMatch(ISO_MICROS);
      const lines = await runCli(['customers', 'export', 'CD-CORA', '--ndjson'], cliEnv());
      expect(lines.code).toBe(0);
      expect(sections(fromLines(ndjson(lines.stdout)))).toEqual(sections(document));
      const unknown = await runCli(['customers', 'export', 'NOBODY'], cliEnv());
      expect([unknown.code, unknown.stdout, unknown.stderr]).toEqual([1, '', expect.stringMatching(/no customer has the external id "NOBODY"/)]);
      const recorded = await exports();
      expect(recorded.slice(before).map((e) => [e.data.format, e.metadata.actor])).toEqual([['json', 'cli'], ['ndjson', 'cli']]);
    }, 60_000);
  });

  it('is in the OpenAPI document: the consent with its paging parameters, the export as JSON or NDJSON, each with who may call it', async () => {
    const doc = (await api.call('/api/docs/openapi.json')).body;
    const consent = doc.paths['/api/data/customers/{external_id}/consent'].get;
    expect(consent.parameters.filter((p: Json) => p.in === 'query').map((p: Json) => [p.name, p.schema.type])).toEqual([['limit', 'integer'], ['from', 'integer']]);
    expect(consent['x-mds-permission']).toBe('data:read');
    const history = doc.paths['/api/data/customers/{external_id}/history'].get;
    expect(history.parameters.filter((p: Json) => p.in === 'query').map((p: Json) => p.name)).toEqual(['as_of', 'limit', 'from']);
    const exported = doc.paths['/api/data/customers/{external_id}/export'].get;
    expect(exported['x-mds-permission']).toBe('audit:read');
    expect(Object.keys(exported.responses['200'].content)).toEqual(['application/json', 'application/x-ndjson']);
    expect(exported.parameters.filter((p: Json) => p.in === 'query')).toEqual([]);
  });

  describe('after forgetting', () => {
    it('answers 404 for her consent, export and history, with nothing of her in them; her exports stay recorded by number', async () => {
      const recordedBefore = await exports();
      await completed('forget', await call(admin, 'POST', '/api/customers/upload/', { customers: [{ external_id: 'CD-CORA', is_forgotten: true }] }));
      await caughtUp();
      const check = async () => {
        for (const path of ['consent', 'export', 'history']) {
          for (const accept of ['application/json', 'application/x-ndjson']) {
            const res = await call(admin, 'GET', `/api/data/customers/CD-CORA/${path}/`, undefined, { accept });
            expect([path, res.status, res.body.error?.code, found(res.text, coraValues)]).toEqual([path, 404, 'not_found', []]);
          }
        }
        const cli = await runCli(['customers', 'export', 'CD-CORA'], cliEnv());
        expect([cli.code, cli.stdout, found(cli.stderr, coraValues)]).toEqual([1, '', []]);
      };
      await check();
      // Rebuilt from the log, the same.
      for (const p of api.rt.projections) await rebuildProjection(api.rt.runnerDeps(), p);
      await caughtUp();
      await check();
      // The other customer's consent and export are whole.
      expect((await call(admin, 'GET', '/api/data/customers/CD-DAN/consent/')).body.count).toBe(1);
      const dans = await call(auditor, 'GET', '/api/data/customers/CD-DAN/export/');
      expect(dans.status).toBe(200);
      expect(found(dans.text, coraValues)).toEqual([]);
      expect(dans.body.sales.map((s: Json) => s.record.sale_external_id)).toEqual(['CD-T2']);
      // Refused exports record nothing; the earlier ones stay, by number only.
      expect((await exports()).slice(0, recordedBefore.length)).toEqual(recordedBefore);
      expect((await exports()).length).toBe(recordedBefore.length + 1);
    }, 120_000);

    it('gives a later customer with her external id a consent history and export of their own, with nothing of hers', async () => {
      await completed('newcomer', await call(admin, 'POST', '/api/customers/upload/', { customers: [{ external_id: 'CD-CORA', email: 'new.holder@example.net', can_email: false, consent_source: 'new-form' }] }));
      // A run is completed once the customers read model has it; its datasync message follows after.
      await caughtUp();
      const consent = await call(admin, 'GET', '/api/data/customers/CD-CORA/consent/');
      expect(consent.body).toEqual({ consent: [expect.objectContaining({ run_id: runs.newcomer, consent_source: 'new-form', fields: { can_email: { before: null, after: false } } })], count: 1, next_url: null });
      const exported = await call(auditor, 'GET', '/api/data/customers/CD-CORA/export/');
      expect(exported.status).toBe(200);
      expect(exported.body.customer.record).toEqual(expect.objectContaining({ external_id: 'CD-CORA', email: 'new.holder@example.net' }));
      expect(exported.body.customer.changes.map((c: Json) => c.run_id)).toEqual([runs.newcomer]);
      // Her events, sales and datasync messages name the same external id (the shop's key, kept): not the newcomer's data.
      expect([exported.body.events, exported.body.sales, exported.body.campaign_events]).toEqual([[], [], []]);
      expect(exported.body.messages.map((m: Json) => m.run.run_id)).toEqual([runs.newcomer]);
      expect(exported.text).not.toContain('[forgotten ');
      expect(found(exported.text, coraValues)).toEqual([]);
    });
  });
});
