import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { eventually } from '../support/eventually';
import { startCli } from '../support/processes';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function postgresRunning(dataDir: string): boolean {
  const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return false;
  try {
    process.kill(Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]), 0);
    return true;
  } catch {
    return false;
  }
}

// `mds start` exactly as `npm start` runs it: no DATABASE_URL, so it boots the embedded PostgreSQL.
describe('mds start with the embedded PostgreSQL', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-start-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  async function startOnce(): Promise<{ health: Record<string, any>; ms: number; output: string; code: number | null }> {
    const port = await freePort();
    const started = Date.now();
    const svc = startCli(['start'], { DATABASE_URL: '', PORT: String(port), HOST: '127.0.0.1', MDS_DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    try {
      const health = await eventually(
        async () => {
          const res = await fetch(`http://127.0.0.1:${port}/health`);
          if (res.status !== 200) throw new Error(`health ${res.status}`);
          return (await res.json()) as Record<string, any>;
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      const ms = Date.now() - started;
      svc.child.kill('SIGTERM');
      const code = await svc.exited;
      return { health, ms, output: svc.output(), code };
    } catch (err) {
      svc.child.kill('SIGKILL');
      throw new Error(`${(err as Error).message}\n${svc.output()}`);
    }
  }

  it('boots, answers /health, stops cleanly on SIGTERM, and reuses its data on the next start', async () => {
    const first = await startOnce();
    expect(first.health).toMatchObject({ status: 'ok', database: { status: 'ok', embedded: true }, event_log: { status: 'ok', kind: 'postgres' } });
    expect([first.code, first.code === 0 ? '' : first.output]).toEqual([0, '']);
    expect(first.output).toContain('embedded PostgreSQL stopped');
    expect(postgresRunning(dataDir)).toBe(false);
    expect(fs.existsSync(path.join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);

    const second = await startOnce();
    expect([second.code, second.code === 0 ? '' : second.output]).toEqual([0, '']);
    expect(second.output).not.toContain('initialising embedded PostgreSQL cluster');
    expect(second.health.database.instance_id).toBe(first.health.database.instance_id);
    expect(postgresRunning(dataDir)).toBe(false);
  }, 180_000);
});
