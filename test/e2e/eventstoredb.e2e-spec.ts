import { status } from '@grpc/grpc-js';
import { keyedRunId } from '#mds/imports';
import { customersProjection, datatargetsProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { startEsdbDouble, type EsdbDouble } from '../support/esdb-double';

// The service with its log on EventStoreDB where the server's limits and failures matter: on the
// wire-level double (a test fixture, not a server), with a small MaxAppendSize so that an ordinary
// import is larger than one append may be.
const MAX_APPEND = 256 * 1024;

describe('the service with its event log on EventStoreDB (the wire-level double)', () => {
  let double: EsdbDouble;
  let api: TestApi;
  let token: string;
  const upload = (customers: unknown[]) =>
    api.call('/api/customers/upload/', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ customers }) });

  beforeAll(async () => {
    double = await startEsdbDouble({ maxAppendSize: MAX_APPEND });
    api = await startTestApi({ projections: [customersProjection, datatargetsProjection], env: { EVENTSTORE_URL: double.url, EVENTSTORE_MAX_APPEND_SIZE: String(MAX_APPEND) } });
    token = (await seedUserToken(api.rt, 'esdb-admin', ['admin'])).token;
  });
  afterAll(async () => {
    await api?.close();
    await double?.close();
  });

  it('accepts an import larger than the maximum append size as one atomic append, and projects all of it', async () => {
    expect(api.rt.store.kind).toBe('esdb');
    const customers = Array.from({ length: 6000 }, (_, i) => ({ external_id: `ES-${i}`, first_name: `First ${i}`, notes: `customer number ${i} of a large import`.repeat(3) }));
    expect(JSON.stringify({ customers }).length).toBeGreaterThan(4 * MAX_APPEND);
    const res = await upload(customers);
    expect([res.status, res.body.accepted]).toEqual([200, 6000]);
    const run = await api.rt.store.readStream(`import-${res.body.run_id}`);
    // The header and its chunks, consecutive in the log: one append.
    const stored = double.events.filter((e) => e.stream === `import-${res.body.run_id}`);
    const first = double.events.indexOf(stored[0]);
    expect(double.events.slice(first, first + stored.length)).toEqual(stored);
    expect(run.map((e) => e.revision)).toEqual(stored.map((_, i) => i));
    expect(double.events.some((e) => e.stream.startsWith('mdsstaged-'))).toBe(true);
    await eventually(async () => expect((await api.call(`/api/runs/${res.body.run_id}/`, { headers: { authorization: `Bearer ${token}` } })).body.state).toBe('completed'), { timeoutMs: 60_000 });
    const { rows } = await api.rt.pool.query(`SELECT count(*)::int AS n, count(*) FILTER (WHERE data->>'first_name' = 'First 5999')::int AS last FROM customers WHERE external_id LIKE 'ES-%'`);
    expect(rows[0]).toEqual({ n: 6000, last: 1 });
  });

  it('takes a post of 10,000 messages (the most a request may hold) and gives every one back', async () => {
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await api.call('/api/datatargets/', { method: 'POST', headers: auth, body: JSON.stringify({ datatarget_type: 'messages', name: 'big posts' }) });
    const id = created.body.datatarget.id;
    const messages = Array.from({ length: 10_000 }, (_, i) => ({ order: i, note: `message ${i} of a post larger than one append may be` }));
    expect(JSON.stringify(messages).length).toBeGreaterThan(2 * MAX_APPEND);
    const posted = await api.call(`/api/datatargets/${id}/post/`, { method: 'POST', headers: auth, body: JSON.stringify({ messages }) });
    expect([posted.status, posted.body]).toEqual([200, { first_message_number: 1, messages_count: 10_000 }]);
    const read = await api.call(`/api/datatargets/${id}/retrieve/?after=0&limit=10000`, { headers: auth });
    expect(read.body.messages.map((m: { order: number }) => m.order)).toEqual(messages.map((m) => m.order));
  });

  it('answers 503 in the envelope when the log stays unavailable, saying the outcome is unknown, records nothing, and takes the retry', async () => {
    const before = double.events.length;
    // The adapter tries an append whose answer is lost twice more; it cannot tell a refusal before the write.
    double.failNext(3, { code: status.UNAVAILABLE }, 'append');
    const refused = await upload([{ external_id: 'ES-OUTAGE', first_name: 'Later' }]);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toEqual({ code: 'unavailable', message: expect.stringContaining('event log is unavailable') });
    expect(refused.body.error.message).toContain('may have been');
    expect(refused.body.error.message).not.toContain('nothing was recorded');
    expect(double.events.length).toBe(before);
    const retried = await upload([{ external_id: 'ES-OUTAGE', first_name: 'Later' }]);
    expect(retried.status).toBe(200);
  });
});

// An import the log committed whose answer was then lost (a status, a deadline, a dropped connection,
// the server going down): its customers are recorded once and keep their personal fields, kept apart
// in PostgreSQL, which the service did not delete; a retry with the same Idempotency-Key gets the first run.
describe('the service with its event log on EventStoreDB: an import committed whose answer is lost', () => {
  let double: EsdbDouble;
  let api: TestApi;
  let token: string;
  let caller: string;
  const headers = (key?: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) });
  const upload = (customers: unknown[], key?: string) => api.call('/api/customers/upload/', { method: 'POST', headers: headers(key), body: JSON.stringify({ customers }) });
  const customer = async (externalId: string) => (await api.call(`/api/data/customers/?external_id=${externalId}`, { headers: headers() })).body.customers?.[0];
  const runs = () => new Set(double.events.filter((e) => e.stream.startsWith('import-')).map((e) => e.stream));

  beforeAll(async () => {
    double = await startEsdbDouble();
    api = await startTestApi({ projections: [customersProjection], env: { EVENTSTORE_URL: double.url } });
    const seeded = await seedUserToken(api.rt, 'esdb-lost', ['admin']);
    token = seeded.token;
    caller = `users/${seeded.userId}`;
    // The token's first use is an append of its own: recorded now, not during the imports below.
    expect((await api.call('/api/data/customers/', { headers: headers() })).status).toBe(200);
  });
  afterAll(async () => {
    await api?.close();
    await double?.close();
  });

  it.each([
    ['UNAVAILABLE', { code: status.UNAVAILABLE }],
    ['DEADLINE_EXCEEDED', { code: status.DEADLINE_EXCEEDED }],
    ['a dropped connection', { drop: true as const }],
  ])('answers 200, or 503 saying the outcome is unknown, after %s, and the customers are readable with their personal fields', async (how, failure) => {
    const externalId = `LOST-${how.replace(/[^A-Za-z]/g, '')}`;
    const person = { external_id: externalId, first_name: 'Grace', email: `${externalId.toLowerCase()}@example.com` };
    const before = runs();
    double.failAfterWrite(1, failure, 'import-');
    const res = await upload([person]);
    // 200 when the service could ask the log in time; 503, the outcome unknown, when it could not.
    expect([200, 503]).toContain(res.status);
    if (res.status === 503) expect(res.body.error.message).toContain('may have been');
    const written = [...runs()].filter((s) => !before.has(s));
    expect(written).toHaveLength(1);
    if (res.status === 200) expect(written[0]).toBe(`import-${res.body.run_id}`);
    // The header and one chunk, once.
    expect(double.events.filter((e) => e.stream === written[0])).toHaveLength(2);
    await eventually(async () => expect(await customer(externalId)).toMatchObject({ first_name: 'Grace', email: person.email }), { timeoutMs: 30_000 });
  });

  it('answers a retry with the same Idempotency-Key with the first run, appending nothing twice, after the server went down with the import committed', async () => {
    const key = 'lost-then-retried';
    const runId = keyedRunId(caller, key);
    const person = { external_id: 'LOST-RETRIED', first_name: 'Ada', email: 'lost.retried@example.com' };
    double.failAfterWrite(1, { drop: true, stayDown: true }, `import-${runId}`);
    const lost = await upload([person], key);
    expect(lost.status).toBe(503);
    expect(lost.body.error).toEqual({ code: 'unavailable', message: expect.stringContaining('same Idempotency-Key') });
    expect(lost.body.error.message).toContain('may have been');
    const stored = double.events.filter((e) => e.stream === `import-${runId}`);
    expect(stored).toHaveLength(2);
    await double.restart();
    const calls = double.appendCalls;
    // The client's retry, as a client retries a 503 (the first attempts may find the client reconnecting).
    const retried = await eventually(async () => {
      const res = await upload([person], key);
      expect(res.status).toBe(200);
      return res;
    });
    expect(retried.body).toMatchObject({ response: 'ok', run_id: runId, accepted: 1 });
    expect(double.events.filter((e) => e.stream === `import-${runId}`)).toEqual(stored);
    expect(double.events.filter((e) => e.stream.startsWith('import-')).map((e) => e.id).filter((id, i, all) => all.indexOf(id) !== i)).toEqual([]);
    expect(double.appendCalls).toBe(calls);
    await eventually(async () => expect(await customer('LOST-RETRIED')).toMatchObject({ first_name: 'Ada', email: 'lost.retried@example.com' }), { timeoutMs: 30_000 });
  });
});

// Where even staging cannot make an append fit: every chunk still counts its metadata and the name
// of its staged parts (some 400 bytes), so enough chunks exceed any MaxAppendSize. A small one here.
describe('the service with its event log on EventStoreDB: an append too large even with its data staged', () => {
  const SMALL_APPEND = 8 * 1024;
  let double: EsdbDouble;
  let api: TestApi;
  let token: string;
  const upload = (count: number, prefix: string) =>
    api.call('/api/customers/upload/', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customers: Array.from({ length: count }, (_, i) => ({ external_id: `${prefix}-${i}` })) }),
    });

  beforeAll(async () => {
    double = await startEsdbDouble({ maxAppendSize: SMALL_APPEND });
    api = await startTestApi({ projections: [customersProjection], env: { EVENTSTORE_URL: double.url, EVENTSTORE_MAX_APPEND_SIZE: String(SMALL_APPEND) } });
    token = (await seedUserToken(api.rt, 'esdb-small', ['admin'])).token;
  });
  afterAll(async () => {
    await api?.close();
    await double?.close();
  });

  it('answers 413 payload_too_large naming the limit, records nothing, and takes a request of fewer records', async () => {
    const before = double.events.length;
    // 40 chunks of 1,000 records: their staged events alone count about twice 8 KiB.
    const refused = await upload(40_000, 'TOO');
    expect(refused.status).toBe(413);
    expect(refused.body.error).toEqual({ code: 'payload_too_large', message: expect.stringContaining('at most 8 KiB (8192 bytes)') });
    // No run and no staged part (the token's first use is recorded, as for any request).
    expect(double.events.slice(before).map((e) => e.stream).filter((s) => !s.startsWith('$') && !s.startsWith('token-use-'))).toEqual([]);
    // Five chunks fit once their records are staged, and the run completes.
    const taken = await upload(5_000, 'FIT');
    expect([taken.status, taken.body.accepted]).toEqual([200, 5000]);
    await eventually(async () => expect((await api.call(`/api/runs/${taken.body.run_id}/`, { headers: { authorization: `Bearer ${token}` } })).body.state).toBe('completed'), { timeoutMs: 60_000 });
    const { rows } = await api.rt.pool.query(`SELECT count(*) FILTER (WHERE external_id LIKE 'FIT-%')::int AS fit, count(*) FILTER (WHERE external_id LIKE 'TOO-%')::int AS too FROM customers`);
    expect(rows[0]).toEqual({ fit: 5000, too: 0 });
  });
});
