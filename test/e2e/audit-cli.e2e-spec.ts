import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readPublicKey } from '#mds/platform';
import { canonicalJson, chainHash, customersProjection, PROJECTIONS, rebuildProjection, verifyExport, waitForProjection } from '#mds/projections';
import { eventually } from '../support/eventually';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { runCli } from '../support/processes';

type Json = Record<string, any>;

/** The auditors' CLI: a replay of the read models into a schema, and the chained export with its verification. */
describe('mds events replay, mds query, mds audit export / verify', () => {
  let api: TestApi;
  let token: string;
  let env: Record<string, string>;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-audit-'));

  const send = (method: string, p: string, body?: unknown) =>
    api.call(p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  async function completed(res: { status: number; body: Json }): Promise<void> {
    expect(res.status).toBe(200);
    await eventually(async () => {
      const run = await send('GET', `/api/runs/${res.body.run_id}/`);
      if (run.body.state !== 'completed') throw new Error(run.body.state);
    });
  }
  const rows = async (schema: string, table: string, order: string) =>
    (await api.rt.pool.query(`SELECT t::text AS row FROM ${schema}.${table} t ORDER BY ${order}`)).rows.map((r) => r.row);

  beforeAll(async () => {
    api = await startTestApi({ projections: PROJECTIONS.filter((p) => p.name !== 'access') });
    token = (await seedUserToken(api.rt, 'auditing-admin', ['admin'])).token;
    env = {
      DATABASE_URL: api.rt.db.url, LOG_LEVEL: 'warn', MDS_SECRET_KEY: 'c'.repeat(64), MDS_AUDIT_SIGNING_KEY: api.rt.config.auditSigningKey!, MDS_PASSWORD_HASH_COST: '10', MDS_PROJECTION_BATCH_SIZE: '7',
    };
  });
  afterAll(async () => {
    await api?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('replay into a schema', () => {
    let snapshot: { customers: string[]; forgotten: string[]; sales: string[]; campaigns: string[]; page: Json };
    let between: number;

    beforeAll(async () => {
      // The first import: customers, products, sales, a campaign and its events.
      await completed(await send('POST', '/api/customers/upload/', { customers: Array.from({ length: 30 }, (_, i) => ({ external_id: `R${i}`, email: `r${i}@example.com`, tags: ['a'], first_name: `F${i}` })) }));
      await completed(await send('POST', '/api/products/upload/', { products: [{ external_id: 'P1', category: 'Shoes' }] }));
      await completed(await send('POST', '/api/sales/upload/', { sales: [{ sale_external_id: 'S1', sale_date: '2026-03-02', sale_customer_id: 'R1', product_id: 'P1', quantity: 1, unit_price: 100 }] }));
      await completed(await send('POST', '/api/campaigns/upload/', { campaigns: [{ campaign_key: 'C1', kind: 'email', state: 'active', activated_at: '2026-03-01T00:00:00Z' }] }));
      await completed(await send('POST', '/api/campaigns/events/upload/', { events: [{ campaign_key: 'C1', type: 'sent', date: '2026-03-01T01:00:00Z', customer_id: 'R1' }] }));
      between = await api.rt.store.headPosition();
      // Everything projected to `between` and nothing after: the snapshot a replay to `between` must equal.
      for (const p of ['customers', 'sales', 'campaigns']) await waitForProjection(api.rt.pool, p, between);
      snapshot = {
        customers: await rows('public', 'customers', 'customer_id'),
        forgotten: await rows('public', 'forgotten_identifiers', 'kind, hash'),
        sales: await rows('public', 'sales', '1'),
        campaigns: await rows('public', 'campaign_stats', '1'),
        page: (await send('GET', '/api/data/customers/?limit=1000')).body,
      };
      // The second: changes, a new customer, a bulk update, a deletion, a forgetting, another sale.
      await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'R1', first_name: 'Changed', 'tags.add': ['b'] }, { external_id: 'R99' }, { external_id: 'R2', is_forgotten: true }] }));
      await completed(await send('POST', '/api/data/query/', { datatype: 'customers', match: { external_id: 'R3' }, update: { is_deleted: true } }));
      await completed(await send('POST', '/api/sales/upload/', { sales: [{ sale_external_id: 'S2', sale_date: '2026-03-03', sale_customer_id: 'R1', product_id: 'P1', quantity: 2, unit_price: 100 }] }));
    }, 120_000);

    // R2 is forgotten after `between`: a replay shows it as it was then, its personal fields as redaction markers.
    const MARKER = /\[forgotten [0-9a-f]{12}\]/;
    const r2Redacted = (list: string[]) => list.map((r) => (r.includes(',R2,') ? (MARKER.test(r) && !/r2@example|F2/.test(r) ? 'R2, redacted' : `R2 NOT redacted: ${r}`) : r));
    const r2Was = (list: string[]) => list.map((r) => (r.includes(',R2,') ? 'R2, redacted' : r));
    const withoutR2 = (list: Json[]) => list.filter((c) => c.external_id !== 'R2');

    it('builds the read models as they were at a position between two imports, leaving the live ones as they are', async () => {
      const live = await rows('public', 'customers', 'customer_id');
      expect(live).not.toEqual(snapshot.customers);
      const generations = (await api.rt.pool.query(`SELECT name, generation, schema_name, state FROM mds_projections ORDER BY name, generation`)).rows;

      const replay = await runCli(['events', 'replay', '--until', String(between), '--into', 'audit_before'], env);
      expect([replay.code, replay.stderr]).toEqual([0, expect.stringMatching(new RegExp(`replay \\w+ \\(${PROJECTIONS.length}/${PROJECTIONS.length}\\) \\[#+\\] 100\\.0%\\s+position ${between}/${between}`))]);
      expect(replay.stdout).toMatch(new RegExp(`^replayed ${PROJECTIONS.length} read models to position ${between} into schema audit_before in [\\d.]+ s: [\\d,]+ events applied in all \\([a-z_]+ [\\d,]+, `));

      expect(r2Redacted(await rows('audit_before', 'customers', 'customer_id'))).toEqual(r2Was(snapshot.customers));
      expect(await rows('audit_before', 'forgotten_identifiers', 'kind, hash')).toEqual(snapshot.forgotten);
      expect(await rows('audit_before', 'sales', '1')).toEqual(snapshot.sales);
      expect(await rows('audit_before', 'campaign_stats', '1')).toEqual(snapshot.campaigns);
      // The live read models and their catalogue are untouched.
      expect(await rows('public', 'customers', 'customer_id')).toEqual(live);
      expect((await api.rt.pool.query(`SELECT name, generation, schema_name, state FROM mds_projections ORDER BY name, generation`)).rows).toEqual(generations);
      const [meta] = (await api.rt.pool.query(`SELECT until_position, events FROM audit_before.mds_replay`)).rows;
      expect(Number(meta.until_position)).toBe(between);

      // Retrieval pointed at the schema answers as the API did then.
      const query = await runCli(['query', 'customers', '--schema', 'audit_before', '--limit', '1000'], env);
      expect(query.code).toBe(0);
      const answered = JSON.parse(query.stdout);
      expect({ ...answered, customers: withoutR2(answered.customers) }).toEqual({ customers: withoutR2(snapshot.page.customers), count: snapshot.page.count });
      expect(answered.customers.find((c: Json) => c.external_id === 'R2')).toEqual({ ...snapshot.page.customers.find((c: Json) => c.external_id === 'R2'), email: expect.stringMatching(MARKER), first_name: expect.stringMatching(MARKER) });
      const one = JSON.parse((await runCli(['query', 'customers', '--schema', 'audit_before', '--where', 'external_id=R1'], env)).stdout);
      expect(one.customers).toEqual([expect.objectContaining({ external_id: 'R1', first_name: 'F1', tags: ['a'] })]);
      const now = JSON.parse((await runCli(['query', 'customers', '--where', 'external_id=R1'], env)).stdout);
      expect(now.customers).toEqual([expect.objectContaining({ first_name: 'Changed', tags: ['a', 'b'] })]);
    }, 120_000);

    it('takes a time for --until, and refuses a schema that exists or is not a plain name', async () => {
      const [at] = (await api.rt.store.readAll({ after: between - 1, limit: 1 })).events;
      const replay = await runCli(['events', 'replay', '--until', new Date(at.createdAt).toISOString(), '--into', 'audit_by_time'], env);
      expect(replay.code).toBe(0);
      const [meta] = (await api.rt.pool.query(`SELECT until_position FROM audit_by_time.mds_replay`)).rows;
      // The last event at or before that time: `between`, or one appended in the same millisecond.
      expect(Number(meta.until_position)).toBeGreaterThanOrEqual(between);
      expect(r2Redacted(await rows('audit_by_time', 'customers', 'customer_id'))).toEqual(r2Was(snapshot.customers));

      const again = await runCli(['events', 'replay', '--until', String(between), '--into', 'audit_by_time'], env);
      expect([again.code, again.stderr.trim()]).toEqual([1, 'mds: schema audit_by_time exists; choose another name, or give --replace to replace an earlier replay']);
      expect((await runCli(['events', 'replay', '--until', '1', '--into', 'audit_by_time', '--replace'], env)).code).toBe(0);
      expect(await rows('audit_by_time', 'customers', 'customer_id')).toEqual([]);
      for (const name of ['public', 'p_customers_1', 'Bad-Name']) {
        const refused = await runCli(['events', 'replay', '--until', '1', '--into', name, '--replace'], env);
        expect([name, refused.code]).toEqual([name, 1]);
      }
      await api.rt.pool.query('CREATE SCHEMA not_a_replay');
      const foreign = await runCli(['events', 'replay', '--until', '1', '--into', 'not_a_replay', '--replace'], env);
      expect(foreign.stderr).toMatch(/schema not_a_replay exists and holds no replay; it is left as it is/);
      const noReplay = await runCli(['query', 'customers', '--schema', 'not_a_replay'], env);
      expect([noReplay.code, noReplay.stderr]).toEqual([1, expect.stringMatching(/holds no replay/)]);
      expect((await runCli(['events', 'replay', '--until', 'yesterday', '--into', 'x_y'], env)).stderr).toMatch(/log position \(a whole number\) or an ISO 8601 time/);
    }, 120_000);
  });

  describe('export and verify', () => {
    const exported = path.join(dir, 'log.jsonl');
    let lines: string[];

    beforeAll(async () => {
      // A chunk with personal fields nobody forgot: its commitment's salt is kept beside it.
      await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'SALTED-1', first_name: 'Salma', email: 'salma@example.com' }] }));
      const res = await runCli(['audit', 'export', '--out', exported], env);
      expect([res.code, res.stderr]).toEqual([0, expect.stringMatching(/exported \d+ events, positions 1 to \d+, to /)]);
      lines = fs.readFileSync(exported, 'utf8').split('\n').slice(0, -1);
    }, 60_000);

    it('writes the start, one chained line per event in position order, then the count and the head, signed', async () => {
      const head = await api.rt.store.headPosition();
      expect(JSON.parse(lines[0])).toEqual({ start: { count: 0, head: '0'.repeat(64), position: 0 } });
      const events = lines.slice(1, -1).map((l) => JSON.parse(l));
      // Every event of the log (positions 1, 2, 3 … on PostgreSQL; commit positions on EventStoreDB).
      const positions = (await api.rt.store.readAll({ limit: 100_000 })).events.map((e) => e.position);
      expect(events.map((l) => l.event.position)).toEqual(positions);
      expect(events.map((l) => l.n)).toEqual(positions.map((_, i) => i + 1));
      expect(events[1].prev).toBe(events[0].hash);
      expect(events[0].prev).toBe('0'.repeat(64));
      expect(Object.keys(events[0].event)).toEqual(['created_at', 'data', 'metadata', 'position', 'revision', 'stream', 'type']);
      expect(JSON.parse(lines[lines.length - 1])).toEqual({
        count: positions.length, from: 1, hash: expect.stringMatching(/^[0-9a-f]{64}$/), head: events[events.length - 1].hash, key_id: expect.stringMatching(/^[0-9a-f]{16}$/), signature: expect.any(String), to: head,
      });
      const ok = await runCli(['audit', 'verify', exported], env);
      expect([ok.code, ok.stdout.trim()]).toEqual([0, expect.stringMatching(new RegExp(`^${exported}: ok, ${positions.length} events, chain head ${events[events.length - 1].hash}; signatures not checked \\(give --public-key\\); personal fields: \\d+ line\\(s\\) as committed, \\d+ erased$`))]);
    });

    it('gives the same bytes for the same range on every run and after a rebuild', async () => {
      const positions = (await api.rt.store.readAll({ limit: 100 })).events.map((e) => e.position);
      const range = ['audit', 'export', '--from', String(positions[2]), '--to', String(positions[14])];
      const first = await runCli(range, env);
      expect(first.code).toBe(0);
      expect(first.stdout.split('\n').slice(1, -2).map((l) => JSON.parse(l).event.position)).toEqual(positions.slice(2, 15));
      await rebuildProjection(api.rt.runnerDeps(), customersProjection);
      const second = await runCli(range, env);
      expect(second.stdout).toBe(first.stdout);
      const whole = await runCli(['audit', 'export'], env);
      expect(whole.stdout).toBe(fs.readFileSync(exported, 'utf8'));
    }, 60_000);

    it('keeps the chain when a customer is forgotten: the same events and hashes, their personal fields as markers beside them, the salt of their chunk erased', async () => {
      const to = await api.rt.store.headPosition();
      const before = await runCli(['audit', 'export', '--to', String(to)], env);
      expect(before.code).toBe(0);
      expect(before.stdout).toContain('r5@example.com');
      await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'R5', is_forgotten: true }] }));
      await waitForProjection(api.rt.pool, 'customers', await api.rt.store.headPosition());
      const after = await runCli(['audit', 'export', '--to', String(to)], env);
      expect(after.code).toBe(0);
      expect(after.stdout).not.toContain('r5@example.com');
      const parse = (out: string) => out.split('\n').slice(0, -1).map((l) => JSON.parse(l) as Json);
      const [was, now] = [parse(before.stdout), parse(after.stdout)];
      // The chain is over the events as the log holds them: not one hash, event or number changed.
      const chain = (ls: Json[]) => ls.map(({ personal, ...rest }) => rest);
      expect(chain(now)).toEqual(chain(was));
      expect(now.filter((l) => l.personal).length).toBeGreaterThan(0);
      const changed = now.filter((l, i) => JSON.stringify(l.personal) !== JSON.stringify(was[i].personal));
      expect(changed.length).toBeGreaterThan(0);
      expect(changed.every((l) => /\[forgotten [0-9a-f]{12}\]/.test(JSON.stringify(l.personal)))).toBe(true);
      // Their chunk's commitment can no longer be tested (its salt went with the values); every other still verifies.
      expect(changed.map((l) => l.salt)).toEqual(changed.map(() => null));
      const unchanged = now.map((l, i) => (l.personal && JSON.stringify(l.personal) === JSON.stringify(was[i].personal) ? i : -1)).filter((i) => i >= 0);
      expect(unchanged.map((i) => now[i].salt)).toEqual(unchanged.map((i) => was[i].salt));
      expect(unchanged.map((i) => now[i].salt)).toContainEqual(expect.any(String));
      // The event itself never held them.
      expect(was.filter((l) => l.event && JSON.stringify(l.event).includes('r5@example.com'))).toEqual([]);
      for (const out of [before, after]) {
        const file = path.join(dir, 'forgetting.jsonl');
        fs.writeFileSync(file, out.stdout);
        const ok = await runCli(['audit', 'verify', file], env);
        const lines2 = parse(out.stdout).filter((l) => l.personal);
        const salted = lines2.filter((l) => typeof l.salt === 'string').length;
        expect([ok.code, ok.stdout.trim()]).toEqual([
          0,
          `${file}: ok, ${was.length - 2} events, chain head ${was[was.length - 1].head}; signatures not checked (give --public-key); personal fields: ${salted} line(s) as committed, ${lines2.length - salted} erased`,
        ]);
      }
    }, 60_000);

    it('names the first bad line when one byte changes, a line goes missing or two change places', async () => {
      // Through the CLI for the first three kinds, in this process (the same check) for the rest.
      let viaCli = 3;
      const verify = async (changed: string[]) => {
        if (viaCli-- <= 0) {
          const result = await verifyExport(changed);
          return result.ok ? 'ok' : `line ${result.line}: ${result.problem}`;
        }
        const file = path.join(dir, 'tampered.jsonl');
        fs.writeFileSync(file, `${changed.join('\n')}\n`);
        const res = await runCli(['audit', 'verify', file], env);
        expect(res.code).toBe(1);
        return res.stderr.trim().replace(`mds: ${file}: `, '');
      };
      const byte = (line: string, at: number) => `${line.slice(0, at)}${line[at] === '1' ? '2' : '1'}${line.slice(at + 1)}`;
      const k = 5; // the fifth line (index 4): the fourth event, after the start line
      const n = k - 1;
      const events = lines.length - 2;
      const dataAt = lines[k - 1].indexOf('"position":') + 11;
      const changes: Array<[string, string[], RegExp]> = [
        ['a digit of the event', lines.map((l, i) => (i === k - 1 ? byte(l, dataAt) : l)), /^line 5: hash does not match/],
        ['a line deleted', lines.filter((_, i) => i !== k - 1), new RegExp(`^line 5: numbered ${n + 1}, expected ${n}`)],
        ['two lines swapped', lines.map((l, i) => (i === k - 1 ? lines[k] : i === k ? lines[k - 1] : l)), new RegExp(`^line 5: numbered ${n + 1}, expected ${n}`)],
        ['a digit of its hash', lines.map((l, i) => (i === k - 1 ? byte(l, l.indexOf('"hash":"') + 8) : l)), /^line 5: hash does not match/],
        ['its number', lines.map((l, i) => (i === k - 1 ? l.replace(`"n":${n},`, `"n":${n + 1},`) : l)), new RegExp(`^line 5: numbered ${n + 1}, expected ${n}`)],
        ['a space', lines.map((l, i) => (i === k - 1 ? l.replace('{"event":', '{ "event":') : l)), /^line 5: not as written/],
        ['a quote', lines.map((l, i) => (i === k - 1 ? l.replace('"', "'") : l)), /^line 5: not JSON/],
        ['the count', lines.map((l, i) => (i === lines.length - 1 ? l.replace(/"count":\d+/, '"count":1') : l)), new RegExp(`^line ${lines.length}: the final line counts 1 events`)],
        ['the last event deleted', lines.filter((_, i) => i !== lines.length - 2), new RegExp(`^line ${lines.length - 1}: the final line counts ${events} events, the file has ${events - 1}`)],
        ['the final line deleted', lines.slice(0, -1), new RegExp(`^line ${lines.length}: the file ends without its final line`)],
        ['two lines swapped and renumbered', lines.map((l, i) => (i === k - 1 ? lines[k].replace(`"n":${n + 1},`, `"n":${n},`) : i === k ? lines[k - 1].replace(`"n":${n},`, `"n":${n + 1},`) : l)), /^line 5: prev is not the hash of the line before it/],
        ['a line added at the end', [...lines, lines[1]], new RegExp(`^line ${lines.length + 1}: a line after the final line`)],
        ['the start line deleted', lines.slice(1), /^line 1: the first line is not the start line/],
      ];
      for (const [what, changed, message] of changes) expect([what, await verify(changed)]).toEqual([what, expect.stringMatching(message)]);
      // Every byte of a line, changed, is found on that line (the check the CLI runs, in this process):
      // the personal fields beside the event too, by the commitment the event carries while its salt is kept.
      const withPersonal = lines.findIndex((l) => l.includes('"personal":') && !l.includes('"salt":null'));
      expect(withPersonal).toBeGreaterThanOrEqual(0);
      // With the public key: a changed byte of the signature or key id counts too.
      const key = readPublicKey((await send('GET', '/api/audit/public-key/')).body.public_key);
      for (const index of [0, 2, withPersonal, lines.length - 1]) {
        const line = lines[index];
        for (let at = 0; at < line.length; at++) {
          const result = await verifyExport(lines.map((l, i) => (i === index ? byte(l, at) : l)), key);
          expect([index, at, result]).toEqual([index, at, expect.objectContaining({ ok: false, line: index + 1 })]);
        }
      }
    }, 120_000);

    it('with the public key, finds a chain recomputed after an edit, a cut tail closed anew, a range that does not join, and a forged checkpoint', async () => {
      await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'BEFORE-1', first_name: 'Ada' }] }));
      const checkpoint = await runCli(['audit', 'checkpoint'], env);
      expect([checkpoint.code, checkpoint.stdout]).toEqual([0, expect.stringMatching(/^checkpoint at position \d+: \d+ events, chain head [0-9a-f]{64}\n$/)]);
      await completed(await send('POST', '/api/customers/upload/', { customers: [{ external_id: 'AFTER-1' }, { external_id: 'AFTER-2' }] }));
      const keyFile = path.join(dir, 'audit.pem');
      const served = (await api.call('/api/audit/public-key/')).body;
      const printed = await runCli(['audit', 'public-key'], env);
      expect([served.algorithm, printed.stdout]).toEqual(['Ed25519', served.public_key]);
      fs.writeFileSync(keyFile, served.public_key);
      const key = readPublicKey(served.public_key);
      const whole = (await runCli(['audit', 'export'], env)).stdout.split('\n').slice(0, -1);
      const file = path.join(dir, 'signed.jsonl');
      fs.writeFileSync(file, `${whole.join('\n')}\n`);
      const ok = await runCli(['audit', 'verify', file, '--public-key', keyFile], env);
      expect([ok.code, ok.stdout]).toEqual([0, expect.stringMatching(new RegExp(`ok, ${whole.length - 2} events, chain head [0-9a-f]{64}; signed by key ${served.key_id}, 1 checkpoint\\(s\\) of the log inside`))]);

      /** The lines with the chain computed again over what they now say, as someone rewriting the file would. */
      const recompute = (ls: string[]) => {
        const start = JSON.parse(ls[0]).start;
        let prev = start.head as string;
        let count = 0;
        const out = [ls[0]];
        for (const l of ls.slice(1, -1)) {
          const line = JSON.parse(l) as Json;
          line.prev = prev;
          line.n = start.count + ++count;
          line.hash = chainHash(prev, canonicalJson(line.event));
          prev = line.hash;
          out.push(canonicalJson(line));
        }
        const final = JSON.parse(ls[ls.length - 1]) as Json;
        const range = { count, from: final.from, to: final.to };
        out.push(canonicalJson({ ...final, ...range, head: prev, hash: chainHash(prev, canonicalJson(range)) }));
        return out;
      };
      // A personal field edited beside its event: found by the commitment, key or not.
      const withSalt = whole.findIndex((l) => l.includes('"personal":{"records":') && !l.includes('"salt":null'));
      const editedPersonal = whole.map((l, i) => (i === withSalt ? l.replace(/"first_name":"[^"]*"/, '"first_name":"Mallory"') : l));
      expect(editedPersonal[withSalt]).not.toBe(whole[withSalt]);
      expect(await verifyExport(editedPersonal)).toEqual({ ok: false, line: withSalt + 1, problem: expect.stringMatching(/personal fields beside the event are not those its commitment names/) });
      const cpLine = whole.findIndex((l) => l.includes('"type":"AuditChainCheckpointed"'));
      const lastEvent = whole.length - 2;
      const edit = (ls: string[], at: number, from: string, to: string) => ls.map((l, i) => (i === at ? l.replace(from, to) : l));
      const cases: Array<[string, string[], RegExp]> = [
        ['an event before the checkpoint edited, the chain recomputed', recompute(edit(whole, 3, '"revision":', '"revision":1')), new RegExp(`^line ${cpLine + 1}: the checkpoint names another chain head`)],
        ['an event after it edited, the chain recomputed', recompute(edit(whole, lastEvent, 'AFTER-2', 'AFTER-3')), new RegExp(`^line ${whole.length}: the final line is not signed by this key`)],
        ['the tail cut, the final line made anew', recompute([...whole.slice(0, lastEvent - 1), whole[whole.length - 1]]), new RegExp(`^line ${lastEvent}: the final line is not signed by this key`)],
        ['the checkpoint forged to match an edit', recompute(edit(edit(whole, 3, '"revision":', '"revision":1'), cpLine, /"head":"[0-9a-f]{64}"/ as never, '"head":"' + 'f'.repeat(64) + '"')), new RegExp(`^line ${cpLine + 1}: `)],
      ];
      for (const [what, lines2, problem] of cases) {
        // Without the key a rewritten chain is consistent; with it, it is found.
        if (what !== 'the checkpoint forged to match an edit') expect([what, (await verifyExport(lines2)).ok]).toEqual([what, what.startsWith('an event before') ? false : true]);
        const result = await verifyExport(lines2, key);
        expect([what, result.ok ? 'ok' : `line ${result.line}: ${result.problem}`]).toEqual([what, expect.stringMatching(problem)]);
      }
      // A range export starts at the chain's point before it, signed: it joins the chain, or is found.
      const all = (await runCli(['audit', 'export'], env)).stdout.split('\n').slice(1, -2).map((l) => JSON.parse(l) as Json);
      const from = all[all.length - 3];
      const before = all[all.length - 4];
      const range = (await runCli(['audit', 'export', '--from', String(from.event.position), '--to', String(all[all.length - 1].event.position)], env)).stdout.split('\n').slice(0, -1);
      expect(JSON.parse(range[0]).start).toEqual({ count: before.n, head: before.hash, key_id: served.key_id, position: before.event.position, signature: expect.any(String) });
      expect(await verifyExport(range, key)).toMatchObject({ ok: true, count: 3 });
      const moved = recompute([range[0].replace(/"head":"[0-9a-f]{64}"/, `"head":"${'e'.repeat(64)}"`), ...range.slice(1)]);
      expect(await verifyExport(moved, key)).toEqual({ ok: false, line: 1, problem: expect.stringMatching(/the start line is not signed by this key/) });
      const refused = await runCli(['audit', 'verify', (fs.writeFileSync(file, `${moved.join('\n')}\n`), file), '--public-key', keyFile], env);
      expect([refused.code, refused.stderr]).toEqual([1, expect.stringMatching(/line 1: the start line is not signed by this key/)]);
    }, 120_000);

    it('refuses a bad range and a missing file', async () => {
      expect((await runCli(['audit', 'export', '--from', 'soon'], env)).stderr).toMatch(/log position \(a whole number\) or an ISO 8601 time/);
      const missing = await runCli(['audit', 'verify', path.join(dir, 'nope.jsonl')], env);
      expect([missing.code, missing.stderr]).toEqual([1, expect.stringMatching(/no file/)]);
    });
  });
});
