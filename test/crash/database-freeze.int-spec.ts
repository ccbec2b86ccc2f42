import { execFileSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { eventually } from '../support/eventually';
import { freePort, startCli } from '../support/processes';

const FREEZE_MS = 10_000;
const PER_REQUEST = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


interface Answer {
  key: string;
  status?: number;
  ms: number;
  body?: { run_id?: string; error?: { code: string; message: string } };
}

// Fault test: the service's PostgreSQL frozen (SIGSTOP to all its processes: up, but answering
// nothing) for 10 s during an import, then resumed. Requests in the outage must get 503 in the
// envelope within 5 s, /health must say which dependency is down, and afterwards everything
// acknowledged is there before any retry (a lost acknowledgement would otherwise be imported again by
// its retry, unseen), and the retries succeed, those of acknowledged keys answering their first run.
describe('PostgreSQL frozen during an import', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-freeze-'));
  let svc: { child: ChildProcess; exited: Promise<number | null>; output: () => string } | undefined;
  let frozen: number[] = [];
  afterAll(async () => {
    for (const pid of frozen) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // gone
      }
    }
    svc?.child.kill('SIGTERM');
    await svc?.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 within 5 s while it is frozen, says so on /health, and loses nothing acknowledged', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    svc = startCli(['start'], {
      DATABASE_URL: '', PORT: String(port), HOST: '127.0.0.1', MDS_DATA_DIR: dataDir, LOG_LEVEL: 'warn', MDS_SECRET_KEY: 'e'.repeat(64),
      MDS_ADMIN_USERNAME: 'admin', MDS_ADMIN_PASSWORD: 'a long admin password', MDS_PASSWORD_HASH_COST: '10', MDS_RATE_LIMIT_PER_MINUTE: '0',
    });
    await eventually(async () => expect((await fetch(`${base}/health`)).status).toBe(200), { timeoutMs: 60_000, intervalMs: 50 });
    const tokenRes = await fetch(`${base}/api/access-tokens/`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from('admin:a long admin password').toString('base64')}` } });
    const token = ((await tokenRes.json()) as { access_token: { token: string } }).access_token.token;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const externalIds = (r: number) => Array.from({ length: PER_REQUEST }, (_, i) => `F-${r * PER_REQUEST + i}`);
    const send = async (r: number): Promise<Answer> => {
      const body = JSON.stringify({ customers: externalIds(r).map((external_id) => ({ external_id, first_name: `F${r}` })) });
      const started = Date.now();
      const res = await fetch(`${base}/api/customers/upload/`, { method: 'POST', headers: { ...headers, 'idempotency-key': `freeze-${r}` }, body, signal: AbortSignal.timeout(30_000) }).catch(() => undefined);
      return { key: `freeze-${r}`, status: res?.status, ms: Date.now() - started, body: res ? ((await res.json().catch(() => undefined)) as Answer['body']) : undefined };
    };

    const before: Answer[] = [];
    for (let r = 0; r < 5; r++) before.push(await send(r));
    expect(before.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);

    const postmaster = Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    frozen = [postmaster, ...execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)]).toString().split('\n').map(Number).filter(Boolean)];
    for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    const frozenAt = Date.now();
    const during: Answer[] = [];
    let health: { status: number; body: { database: { status: string; error?: string }; event_log: { status: string } }; ms: number } | undefined;
    let r = 5;
    while (Date.now() - frozenAt < FREEZE_MS - 1000) {
      during.push(await send(r++));
      await sleep(200); // a client sending five requests a second
      if (!health && Date.now() - frozenAt > 3000) {
        const started = Date.now();
        const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(10_000) });
        health = { status: res.status, body: (await res.json()) as never, ms: Date.now() - started };
      }
    }
    await sleep(Math.max(0, FREEZE_MS - (Date.now() - frozenAt)));
    for (const pid of frozen) process.kill(pid, 'SIGCONT');
    frozen = [];

    // In the outage: a 503 envelope for every request, each within 5 s; none hung, none a 500.
    expect(during.length).toBeGreaterThan(3);
    expect(during.filter((a) => a.status !== 503 || a.ms > 5000 || a.body?.error?.code !== 'unavailable')).toEqual([]);
    expect(health).toMatchObject({ status: 503, body: { database: { status: 'failing' }, event_log: { status: 'failing' } } });
    expect(health!.ms).toBeLessThan(5000);

    // Afterwards, before any retry: every acknowledged run is there, completes, and its customers are
    // readable. A retry would import a lost one again under the same key, so this is where a lost
    // acknowledgement shows.
    await eventually(async () => expect((await fetch(`${base}/health`)).status).toBe(200), { timeoutMs: 30_000, intervalMs: 100 });
    const acknowledged = new Map<number, string>();
    for (const [k, a] of [...before, ...during].entries()) if (a.status === 200) acknowledged.set(k, a.body!.run_id!);
    expect(acknowledged.size).toBeGreaterThanOrEqual(before.length);
    const createdAt = new Map<string, string>();
    for (const run of acknowledged.values()) {
      const state = await eventually(async () => {
        const res = await fetch(`${base}/api/runs/${run}/`, { headers });
        const body = (await res.json()) as { state: string; created_at: string };
        expect([run, res.status, body.state]).toEqual([run, 200, 'completed']);
        return body;
      }, { timeoutMs: 60_000, intervalMs: 100 });
      createdAt.set(run, state.created_at);
    }
    const readIds = async () => {
      const ids: string[] = [];
      for (let next: string | null = '/api/data/customers/?limit=10000'; next; ) {
        const page = (await (await fetch(new URL(next, base), { headers })).json()) as { customers: Array<{ external_id: string }>; next_url: string | null };
        ids.push(...page.customers.map((c) => c.external_id));
        next = page.next_url;
      }
      return ids;
    };
    const beforeRetries = new Set(await readIds());
    expect([...acknowledged.keys()].flatMap(externalIds).filter((id) => !beforeRetries.has(id))).toEqual([]);

    // Then each request succeeds on retry; an acknowledged key answers its first run, unchanged.
    const runs: string[] = [];
    for (let k = 0; k < r; k++) {
      const answer = await eventually(async () => {
        const a = await send(k);
        if (a.status !== 200) throw new Error(`${a.key}: ${a.status}`);
        return a as Answer & { body: { run_id: string } };
      }, { timeoutMs: 30_000, intervalMs: 200 });
      if (acknowledged.has(k)) expect([answer.key, answer.body.run_id]).toEqual([answer.key, acknowledged.get(k)]);
      runs.push(answer.body.run_id);
    }
    for (const run of runs) {
      const state = await eventually(async () => {
        const body = (await (await fetch(`${base}/api/runs/${run}/`, { headers })).json()) as { state: string; created_at: string };
        expect(body.state).toBe('completed');
        return body;
      }, { timeoutMs: 60_000, intervalMs: 100 });
      if (createdAt.has(run)) expect([run, state.created_at]).toEqual([run, createdAt.get(run)]);
    }
    const ids = await readIds();
    expect([ids.length, new Set(ids).size]).toEqual([r * PER_REQUEST, r * PER_REQUEST]);
    console.log(
      `database freeze: ${FREEZE_MS / 1000} s; ${during.length} requests in the outage, all 503, answered in ${Math.min(...during.map((a) => a.ms))}-${Math.max(...during.map((a) => a.ms))} ms; /health 503 in ${health!.ms} ms (${health!.body.database.error}); ${acknowledged.size} acknowledged, all there before any retry; ${r} requests, ${r * PER_REQUEST} customers after the retries`,
    );
  }, 300_000);
});
