import { customersProjection, eventsProjection, productsProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { unstamped } from '../support/records';

type Json = Record<string, any>;

/**
 * The auditors' API: the log itself (GET /api/audit/events/) and one customer's history
 * (GET /api/data/customers/{external_id}/history/), over imports by an integration and by a user,
 * bulk updates, deletions and subscriptions.
 */
describe('audit trail over HTTP', () => {
  let api: TestApi;
  let admin: { token: string; userId: string; tokenId: string };
  let auditor: { token: string; userId: string; tokenId: string };
  let shop: { token: string; tokenId: string; actor: string };

  const send = (token: string, method: string, path: string, body?: unknown) =>
    api.call(path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  async function completed(token: string, res: { status: number; body: Json }): Promise<Json> {
    expect(res.status).toBe(200);
    await eventually(async () => {
      const run = await send(token, 'GET', `/api/runs/${res.body.run_id}/`);
      if (run.body.state !== 'completed') throw new Error(run.body.state);
    });
    return res.body;
  }
  const audit = (query: string, token = auditor.token) => send(token, 'GET', `/api/audit/events/${query}`);
  /** Every event the API lists for a query, by following next_url. */
  async function allPages(query: string): Promise<Json[]> {
    const out: Json[] = [];
    let path: string | null = `/api/audit/events/${query}`;
    while (path) {
      const res = await send(auditor.token, 'GET', path);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(res.body.events.length);
      expect('next_url' in res.body).toBe(true);
      out.push(...res.body.events);
      path = res.body.next_url;
    }
    expect(path).toBeNull();
    return out;
  }

  beforeAll(async () => {
    api = await startTestApi({ projections: [customersProjection, eventsProjection, productsProjection] });
    admin = await seedUserToken(api.rt, 'audit-admin', ['admin']);
    auditor = await seedUserToken(api.rt, 'auditor', ['auditor']);
    const integration = await send(admin.token, 'POST', '/api/integrations/', { integration_name: 'shop', parameters: { name: 'Web shop' } });
    expect(integration.status).toBe(200);
    const minted = await send(admin.token, 'POST', '/api/access-tokens/', { name: 'shop sync', owner_id: `integrations/${integration.body.integration.id}` });
    expect(minted.status).toBe(200);
    shop = { token: minted.body.access_token.token, tokenId: minted.body.access_token.id, actor: `integrations/${integration.body.integration.id}` };
  });
  afterAll(async () => {
    await api?.close();
  });

  describe('the log', () => {
    let shopRun: string;
    let adminRun: string;
    let queryRun: string;
    let deletionRun: string;

    beforeAll(async () => {
      shopRun = (await completed(shop.token, await send(shop.token, 'POST', '/api/customers/upload/', { customers: [{ external_id: 'L1', email: 'l1@example.com' }, { external_id: 'L2' }] }))).run_id;
      adminRun = (await completed(admin.token, await send(admin.token, 'POST', '/api/customers/upload/', { customers: [{ external_id: 'L3', tags: ['vip'] }] }))).run_id;
      queryRun = (await completed(admin.token, await send(admin.token, 'POST', '/api/data/query/', { datatype: 'customers', match: { tags: 'vip' }, update: { ACME__tier: 'gold' } }))).run_id;
      deletionRun = (await completed(admin.token, await send(admin.token, 'POST', '/api/data/query/', { datatype: 'customers', match: { external_id: 'L2' }, update: { is_deleted: true } }))).run_id;
    });

    it('is for auditors and admins: an integration token, or a staff user, gets 403', async () => {
      expect((await audit('', shop.token)).status).toBe(403);
      const staff = await seedUserToken(api.rt, 'staff-user', ['staff']);
      const refused = await audit('', staff.token);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
      expect((await audit('', admin.token)).status).toBe(200);
      expect((await audit('')).status).toBe(200);
    });

    it('lists events in position order with their stream, type, revision, time, data and metadata', async () => {
      const events = await allPages('?limit=1000');
      const positions = events.map((e) => e.position);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(new Set(positions).size).toBe(positions.length);
      const chunk = events.find((e) => e.type === 'CustomersImported' && e.metadata.run_id === shopRun)!;
      expect(chunk).toMatchObject({ stream: `import-${shopRun}`, revision: expect.any(Number), data: { records: [{ external_id: 'L1', email: 'l1@example.com' }, { external_id: 'L2' }] } });
      expect(Date.parse(chunk.created_at)).toBeGreaterThan(Date.now() - 600_000);
      expect(Object.keys(chunk).sort()).toEqual(['created_at', 'data', 'metadata', 'position', 'revision', 'stream', 'type']);
    });

    it('names who sent each event: the actor and the token for the integration, the user and the bulk updates', async () => {
      const events = await allPages('?limit=1000');
      const ofRun = (run: string) => events.filter((e) => e.metadata.run_id === run);
      expect(ofRun(shopRun).length).toBeGreaterThanOrEqual(2); // the run's header and its chunk
      for (const e of ofRun(shopRun)) expect(e.metadata).toMatchObject({ actor: shop.actor, token_id: shop.tokenId, request_id: expect.any(String) });
      for (const e of ofRun(adminRun)) expect(e.metadata).toMatchObject({ actor: `users/${admin.userId}`, token_id: admin.tokenId });
      for (const run of [queryRun, deletionRun]) {
        const [accepted] = ofRun(run);
        expect(accepted).toMatchObject({ type: 'DataQueryAccepted', metadata: { actor: `users/${admin.userId}`, token_id: admin.tokenId } });
      }
      // The integration's token itself was created by the admin, with the admin's token.
      const created = events.find((e) => e.type === 'AccessTokenCreated' && e.data.token_id === shop.tokenId);
      expect(created?.metadata).toMatchObject({ actor: `users/${admin.userId}`, token_id: admin.tokenId });
    });

    it('narrows by every filter exactly as the log says', async () => {
      const all = await allPages('?limit=1000');
      const cases: Array<[string, (e: Json) => boolean]> = [
        ['type=CustomersImported', (e) => e.type === 'CustomersImported'],
        ['type=DataQueryAccepted,ImportRunAccepted', (e) => e.type === 'DataQueryAccepted' || e.type === 'ImportRunAccepted'],
        [`stream=import-${adminRun}`, (e) => e.stream === `import-${adminRun}`],
        ['stream_prefix=import-', (e) => e.stream.startsWith('import-')],
        [`actor=${shop.actor}`, (e) => e.metadata.actor === shop.actor],
        [`actor=users/${admin.userId}&type=CustomersImported`, (e) => e.metadata.actor === `users/${admin.userId}` && e.type === 'CustomersImported'],
      ];
      for (const [query, keep] of cases) {
        const expected = all.filter(keep).map((e) => e.position);
        expect([query, expected.length > 0 && expected.length < all.length]).toEqual([query, true]);
        expect([query, (await allPages(`?${query}&limit=2`)).map((e) => e.position)]).toEqual([query, expected]);
      }
      // since / until: a time between two events splits the log there (since inclusive, until exclusive).
      const middle = all[Math.floor(all.length / 2)];
      const since = middle.created_at;
      expect((await allPages(`?since=${since}&limit=1000`)).map((e) => e.position)).toEqual(all.filter((e) => e.created_at >= since).map((e) => e.position));
      expect((await allPages(`?until=${since}&limit=1000`)).map((e) => e.position)).toEqual(all.filter((e) => e.created_at < since).map((e) => e.position));
      // from: after a position, exclusive.
      expect((await allPages(`?from=${middle.position}&limit=1000`)).map((e) => e.position)).toEqual(all.filter((e) => e.position > middle.position).map((e) => e.position));
    });

    it('pages the whole log by next_url while imports go on, losing and repeating nothing', async () => {
      let importing = true;
      let firstWritten!: () => void;
      const written = new Promise<void>((resolve) => (firstWritten = resolve));
      const writers = [shop, admin].map(async (sender, w) => {
        for (let i = 0; importing && i < 200; i++) {
          const res = await send(sender.token, 'POST', '/api/customers/upload/', { customers: [{ external_id: `W${w}-${i}` }] });
          expect(res.status).toBe(200);
          firstWritten();
        }
      });
      // The reader starts once one import is in the log (so the pages must hold one), and
      // reads on while the writers go on writing.
      await written;
      const paged: Json[] = [];
      let path: string | null = '/api/audit/events/?limit=3';
      let pages = 0;
      while (path) {
        const res = await send(auditor.token, 'GET', path);
        paged.push(...res.body.events);
        path = res.body.next_url;
        // Keep reading while the writers write, then finish in pages of 1,000: what is tested is the
        // pages read while the log grows. Reading the rest in pages of 3 took over the test's minute
        // with the machine busy.
        if (++pages === 60) importing = false;
        if (pages >= 60) path = path?.replace(/([?&])limit=3(?=&|$)/, '$1limit=1000') ?? null;
      }
      importing = false;
      await Promise.all(writers);
      const last = paged[paged.length - 1].position;
      const whole = (await allPages('?limit=1000')).filter((e) => e.position <= last);
      expect(paged.map((e) => e.position)).toEqual(whole.map((e) => e.position));
      expect(paged.filter((e) => String(e.data?.records?.[0]?.external_id ?? '').startsWith('W')).length).toBeGreaterThan(0);
    });

    it('refuses bad parameters with 400 and names them', async () => {
      const cases: Array<[string, RegExp]> = [
        ['?limit=0', /^limit must be a whole number from 1 to 1000/],
        ['?limit=1001', /^limit must be a whole number from 1 to 1000/],
        ['?from=-1', /^from must be a log position/],
        ['?since=yesterday', /^since must be an ISO 8601 date or time/],
        ['?until=2026-13-45', /^until must be an ISO 8601 date or time/],
        ['?type=Customers Imported', /^type must be event types separated by commas/],
        ['?actor=someone@else', /^actor must be users\/<id>, integrations\/<id>/],
        ['?colour=red', /colour/],
      ];
      for (const [query, message] of cases) {
        const res = await audit(query);
        expect([query, res.status, res.body.error?.code]).toEqual([query, 400, 'invalid_request']);
        expect(res.body.error.message).toMatch(message);
      }
    });
  });

  describe("a customer's history", () => {
    const times: string[] = [];
    const history = (externalId: string, query = '', token = auditor.token) => send(token, 'GET', `/api/data/customers/${encodeURIComponent(externalId)}/history/${query}`);

    beforeAll(async () => {
      // Five changes from two senders: the shop imports, the admin edits, a subscription event, a bulk update, the shop again.
      await completed(shop.token, await send(shop.token, 'POST', '/api/customers/upload/', { customers: [{ external_id: 'H1', email: 'h1@example.com', first_name: 'Ann', tags: ['a'] }] }));
      await completed(admin.token, await send(admin.token, 'POST', '/api/customers/upload/', { customers: [{ external_id: 'H1', first_name: 'Anne', 'tags.add': ['b'] }] }));
      await completed(shop.token, await send(shop.token, 'POST', '/api/events/upload/', [{ type: 'MAIL_SUBSCRIBE', date: '2026-03-01T10:00:00.000000Z', customer_id: 'H1', email: 'h1@example.com', mailing_lists: ['news'] }]));
      await completed(admin.token, await send(admin.token, 'POST', '/api/data/query/', { datatype: 'customers', match: { external_id: 'H1' }, update: { ACME__tier: 'gold' } }));
      await completed(shop.token, await send(shop.token, 'POST', '/api/customers/upload/', { customers: [{ external_id: 'H1', last_name: 'Smith', 'tags.remove': ['a'] }] }));
      // One request naming a customer twice (the merge takes both in one step) and a deletion.
      await completed(shop.token, await send(shop.token, 'POST', '/api/customers/upload/', { customers: [{ external_id: 'H2', city: 'Oulu' }, { external_id: 'H3' }, { external_id: 'H2', city: 'Turku', zip_code: '20100' }] }));
      await completed(admin.token, await send(admin.token, 'POST', '/api/customers/upload/', { customers: [{ external_id: 'H3', is_deleted: true }] }));
      times.push(...(await history('H1')).body.changes.map((c: Json) => c.at));
    });

    it('lists every change in log order with its sender, kind and the customer after it', async () => {
      const res = await history('H1');
      expect(res.status).toBe(200);
      const { changes } = res.body;
      expect(changes.map((c: Json) => [c.type, c.actor])).toEqual([
        ['import', shop.actor],
        ['import', `users/${admin.userId}`],
        ['subscription', shop.actor],
        ['bulk_update', `users/${admin.userId}`],
        ['import', shop.actor],
      ]);
      expect(changes.map((c: Json) => c.position)).toEqual([...changes.map((c: Json) => c.position)].sort((a, b) => a - b));
      expect(changes.every((c: Json) => typeof c.run_id === 'string')).toBe(true);
      expect(changes[1].change).toEqual({ external_id: 'H1', first_name: 'Anne', 'tags.add': ['b'] });
      expect(changes[3].change).toEqual({ ACME__tier: 'gold' });
      const base = { can_email: false, can_post: false, can_profile: false, can_push: false, can_sms: false, external_id: 'H1', email: 'h1@example.com' };
      // Each state as retrieval shows the customer: its id, and updated_at the time of that change.
      expect(changes.map((c: Json) => [c.state_after.id, c.state_after.updated_at])).toEqual(changes.map((c: Json) => [changes[0].state_after.id, c.at]));
      expect(changes.map((c: Json) => unstamped(c.state_after))).toEqual([
        { ...base, first_name: 'Ann', tags: ['a'] },
        { ...base, first_name: 'Anne', tags: ['a', 'b'] },
        { ...base, first_name: 'Anne', tags: ['a', 'b'], can_email: true, mailing_lists: ['news'] },
        { ...base, first_name: 'Anne', tags: ['a', 'b'], can_email: true, mailing_lists: ['news'], ACME__tier: 'gold' },
        { ...base, first_name: 'Anne', tags: ['b'], can_email: true, mailing_lists: ['news'], ACME__tier: 'gold', last_name: 'Smith' },
      ]);
      // The last state is the customer retrieval shows.
      const now = await send(auditor.token, 'GET', '/api/data/customers/?external_id=H1');
      expect(now.body.customers).toEqual([changes[4].state_after]);
    });

    it('as_of gives the customer as it was then, and the changes up to then', async () => {
      const between = new Date((Date.parse(times[2]) + Date.parse(times[3])) / 2).toISOString();
      const res = await history('H1', `?as_of=${between}`);
      expect(res.status).toBe(200);
      expect(res.body.as_of).toBe(between.replace(/Z$/, '000Z'));
      expect(res.body.changes).toHaveLength(3);
      expect(res.body.customer).toEqual(res.body.changes[2].state_after);
      expect(res.body.customer.ACME__tier).toBeUndefined();
      expect(res.body.customer.mailing_lists).toEqual(['news']);
      const before = await history('H1', `?as_of=${new Date(Date.parse(times[0]) - 1000).toISOString()}`);
      expect(before.body).toMatchObject({ customer: null, changes: [] });
    });

    it('pages the changes by next_url', async () => {
      const first = await history('H1', '?limit=2');
      expect(first.body.changes.map((c: Json) => c.at)).toEqual(times.slice(0, 2));
      const pages: Json[] = [...first.body.changes];
      let next = first.body.next_url;
      while (next) {
        const page = await send(auditor.token, 'GET', next);
        expect('next_url' in page.body).toBe(true);
        pages.push(...page.body.changes);
        next = page.body.next_url;
      }
      expect(next).toBeNull();
      expect(pages).toEqual((await history('H1')).body.changes);
    });

    it('keeps each record of one request as a change, and shows deletions', async () => {
      const h2 = (await history('H2')).body.changes;
      expect(h2.map((c: Json) => [c.position, c.state_after.city])).toEqual([
        [h2[0].position, 'Oulu'],
        [h2[0].position, 'Turku'],
      ]);
      expect(h2[1].state_after.zip_code).toBe('20100');
      const h3 = (await history('H3')).body.changes;
      expect(h3.map((c: Json) => c.type)).toEqual(['import', 'deletion']);
      expect(h3[1].state_after).toMatchObject({ external_id: 'H3', is_deleted: true });
    });

    it('answers 404 for an unknown customer, 403 without the audit role, 400 for a bad as_of', async () => {
      expect((await history('nobody')).status).toBe(404);
      expect((await history('H1', '', shop.token)).status).toBe(403);
      const bad = await history('H1', '?as_of=soon');
      expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_request']);
      expect(bad.body.error.message).toMatch(/^as_of must be an ISO 8601 date or time/);
    });
  });
});
