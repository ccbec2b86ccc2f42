import { execFileSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { eventually } from '../support/eventually';
import { freePort, startCli } from '../support/processes';

const TOTAL = 50_000;
const PER_REQUEST = 1000;
const KILLS = 5;


const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Fault test: `mds start` (API, projections, outlet worker and its embedded PostgreSQL) killed with
// SIGKILL, PostgreSQL too, five times while a client imports 50,000 customers in requests of 1,000,
// each retried with its Idempotency-Key until it is answered. Nothing acknowledged may be lost and
// nothing imported twice.
describe('the whole service killed with SIGKILL during an import', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-kill-'));
  let port: number;
  let svc: { child: ChildProcess; exited: Promise<number | null>; output: () => string } | undefined;
  afterAll(async () => {
    svc?.child.kill('SIGTERM');
    await svc?.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const base = () => `http://127.0.0.1:${port}`;
  async function start(): Promise<number> {
    const started = Date.now();
    svc = startCli(['start'], {
      DATABASE_URL: '', PORT: String(port), HOST: '127.0.0.1', MDS_DATA_DIR: dataDir, LOG_LEVEL: 'warn', MDS_SECRET_KEY: 'd'.repeat(64),
      MDS_ADMIN_USERNAME: 'admin', MDS_ADMIN_PASSWORD: 'a long admin password', MDS_PASSWORD_HASH_COST: '10', MDS_RATE_LIMIT_PER_MINUTE: '0',
    });
    const current = svc;
    await eventually(
      async () => {
        if ((await fetch(`${base()}/health`)).status !== 200) throw new Error('not healthy yet');
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    ).catch((err) => {
      throw new Error(`${(err as Error).message}\n${current.output()}`);
    });
    return Date.now() - started;
  }

  /** SIGKILL to the service and to its PostgreSQL; returns once every PostgreSQL process is gone. */
  async function killAll(): Promise<void> {
    const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
    const postmaster = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    const backends = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)]).toString().split('\n').map(Number).filter(Boolean);
    svc!.child.kill('SIGKILL');
    for (const pid of [postmaster, ...backends]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await svc!.exited;
    await eventually(() => expect([postmaster, ...backends].filter(alive)).toEqual([]), { timeoutMs: 20_000, intervalMs: 20 });
  }

  it('loses nothing acknowledged and imports nothing twice across 5 kills, each restart timed', async () => {
    port = await freePort();
    const firstStart = await start();
    const tokenRes = await fetch(`${base()}/api/access-tokens/`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from('admin:a long admin password').toString('base64')}` } });
    const token = ((await tokenRes.json()) as { access_token: { token: string } }).access_token.token;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    const runs: string[] = [];
    let attempts = 0;
    let refused = 0;
    const client = (async () => {
      for (let r = 0; r < TOTAL / PER_REQUEST; r++) {
        const body = JSON.stringify({ customers: Array.from({ length: PER_REQUEST }, (_, i) => ({ external_id: `K-${r * PER_REQUEST + i}`, email: `k${r * PER_REQUEST + i}@example.com`, first_name: `K${r}` })) });
        for (;;) {
          attempts++;
          const res = await fetch(`${base()}/api/customers/upload/`, { method: 'POST', headers: { ...headers, 'idempotency-key': `import-${r}` }, body, signal: AbortSignal.timeout(30_000) }).catch(() => undefined);
          if (res?.status === 200) {
            runs.push(((await res.json()) as { run_id: string }).run_id);
            break;
          }
          // A 4xx would be a client error: retrying cannot help, and it must not happen here.
          if (res && res.status < 500) throw new Error(`request ${r}: ${res.status} ${await res.text()}`);
          refused++;
          await sleep(100);
        }
      }
    })();

    const restarts: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      // Each kill after a few more acknowledged requests, at a random moment: mid-request, mid-append or mid-projection.
      const target = (k + 1) * 8;
      await eventually(() => expect(runs.length).toBeGreaterThanOrEqual(target), { timeoutMs: 120_000, intervalMs: 5 });
      await sleep(Math.random() * 150);
      await killAll();
      restarts.push(await start());
    }
    await client;
    expect(new Set(runs).size).toBe(TOTAL / PER_REQUEST);

    for (const run of runs) {
      await eventually(async () => expect(((await (await fetch(`${base()}/api/runs/${run}/`, { headers })).json()) as { state: string }).state).toBe('completed'), { timeoutMs: 120_000, intervalMs: 100 });
    }
    const ids: string[] = [];
    let next: string | null = `${base()}/api/data/customers/?limit=10000`;
    while (next) {
      const page = (await (await fetch(next, { headers })).json()) as { customers: Array<{ external_id: string }>; next_url: string | null };
      ids.push(...page.customers.map((c) => c.external_id));
      next = page.next_url && new URL(page.next_url, base()).toString();
    }
    expect(ids.length).toBe(TOTAL);
    expect(new Set(ids).size).toBe(TOTAL);
    // And in the log: one run per request and one chunk per run, however often a request was retried.
    const logged = async (type: string) =>
      ((await (await fetch(`${base()}/api/audit/events/?type=${type}&limit=1000`, { headers })).json()) as { events: Array<{ stream: string }> }).events.map((e) => e.stream);
    const accepted = (await logged('ImportRunAccepted')).filter((s) => runs.includes(s.replace(/^import-/, '')));
    expect([accepted.length, new Set(accepted).size]).toEqual([runs.length, runs.length]);
    expect((await logged('CustomersImported')).length).toBe(runs.length);
    console.log(`service kill: ${KILLS} kills of the service and its PostgreSQL during ${TOTAL} customers in ${runs.length} requests (${attempts} attempts, ${refused} unanswered or refused and retried); first start ${firstStart} ms, restarts ${restarts.join(', ')} ms; ${ids.length} customers, none twice`);
  }, 600_000);
});
