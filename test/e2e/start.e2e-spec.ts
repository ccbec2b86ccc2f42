import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { eventually } from '../support/eventually';
import { CLI, freePort, ROOT, runCli, startCli } from '../support/processes';


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

  /**
   * `mds start` on a real terminal: util-linux script(1) runs it on a pseudo-terminal. `text()` is what
   * it has printed so far, colours and carriage returns left out.
   */
  async function startOnTerminal(dir: string, env: Record<string, string>): Promise<{ port: number; text: () => string; stop: () => Promise<void> }> {
    const port = await freePort();
    const child = spawn('script', ['-qec', `${process.execPath} ${CLI} start`, '/dev/null'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '', EVENTSTORE_URL: '', LOG_FORMAT: '', MDS_ADMIN_USERNAME: '', MDS_ADMIN_PASSWORD: '', PORT: String(port), HOST: '127.0.0.1', MDS_DATA_DIR: dir, LOG_LEVEL: 'info', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    const exited = new Promise((r) => child.on('exit', r));
    return {
      port,
      text: () => out.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, ''),
      stop: async () => {
        process.kill(-child.pid!, 'SIGTERM');
        await exited;
      },
    };
  }

  const ttyDirs: string[] = [];
  afterAll(() => ttyDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
  function tempDir(): string {
    ttyDirs.push(fs.mkdtempSync(path.join(os.tmpdir(), 'mds-tty-')));
    return ttyDirs[ttyDirs.length - 1];
  }

  it('on a terminal prints a banner (where it listens, the docs, the data, how to make the first user) and human log lines; JSON lines elsewhere', async () => {
    const dir = tempDir();
    const svc = await startOnTerminal(dir, {});
    try {
      await eventually(() => expect(svc.text()).toContain('Ctrl-C stops it'), { timeoutMs: 60_000, intervalMs: 100 });
      const text = svc.text();
      expect(text).toContain(`API        http://127.0.0.1:${svc.port}`);
      expect(text).toContain(`API docs   http://127.0.0.1:${svc.port}/api/docs/`);
      expect(text).toContain(`Data       ${dir} (embedded PostgreSQL`);
      expect(text).toContain("MDS_ADMIN_USERNAME=admin MDS_ADMIN_PASSWORD='a long password' npm start");
      expect(text).toContain('npx mds users create admin --role admin --role superuser --password-stdin');
      expect(text).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: embedded PostgreSQL started \{"port":\d+/m);
      expect(text).not.toContain('{"level"');
    } finally {
      await svc.stop();
    }
    // Not on a terminal (this test's pipes), the same start writes JSON lines and no banner.
    const json = await startOnce();
    expect(json.output).not.toContain('Marketing Data Service is running');
    expect(json.output.split('\n').filter((l) => l.trim()).every((l) => l.startsWith('{'))).toBe(true);
  }, 180_000);

  it('on a terminal with LOG_FORMAT=json writes JSON lines and no banner', async () => {
    const svc = await startOnTerminal(tempDir(), { LOG_FORMAT: 'json' });
    try {
      await eventually(() => expect(svc.text()).toContain('"msg":"listening on'), { timeoutMs: 60_000, intervalMs: 100 });
      // A banner would be written with the line saying it listens; this request's line comes after it.
      expect((await fetch(`http://127.0.0.1:${svc.port}/health`)).status).toBe(200);
      await eventually(() => expect(svc.text()).toContain('"url":"/health"'), { timeoutMs: 10_000, intervalMs: 50 });
      const lines = svc.text().split('\n').filter((l) => l.trim());
      expect(lines.filter((l) => !l.startsWith('{'))).toEqual([]);
      expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(expect.arrayContaining(['embedded PostgreSQL started', 'request']));
    } finally {
      await svc.stop();
    }
  }, 180_000);

  it('a PORT in use is one line naming it and PORT, exit 1, before the database boots', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    const dir = tempDir();
    try {
      const res = await runCli(['start'], { DATABASE_URL: '', PORT: String(port), HOST: '127.0.0.1', MDS_DATA_DIR: dir, LOG_LEVEL: 'info' }, 60_000);
      expect(res).toEqual({ code: 1, stdout: '', stderr: `mds: port ${port} is in use (set PORT to another)\n` });
      expect(fs.existsSync(path.join(dir, 'pg'))).toBe(false);
    } finally {
      taken.close();
    }
  }, 90_000);

  it('Ctrl-C (SIGINT to the whole process group, as a terminal sends it) stops it with exit 0 and no warning', async () => {
    const dir = tempDir();
    const port = await freePort();
    // In a process group of its own, as the foreground job of a terminal is: the signal reaches every process in it.
    const child = spawn(process.execPath, [CLI, 'start'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '', EVENTSTORE_URL: '', LOG_FORMAT: 'json', MDS_ADMIN_USERNAME: '', MDS_ADMIN_PASSWORD: '', PORT: String(port), HOST: '127.0.0.1', MDS_DATA_DIR: dir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await eventually(async () => expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200), { timeoutMs: 60_000, intervalMs: 100 });
      process.kill(-child.pid!, 'SIGINT');
      expect([await exited, out.slice(-2000)]).toEqual([0, expect.any(String)]);
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
    const lines = out.split('\n').filter((l) => l.trim());
    const levels = lines.map((l) => (JSON.parse(l) as { level: string; msg: string }));
    expect(levels.filter((l) => !['trace', 'debug', 'info'].includes(l.level))).toEqual([]);
    expect(levels.map((l) => l.msg).slice(-3)).toEqual(expect.arrayContaining(['shutting down', 'embedded PostgreSQL stopped', 'stopped']));
    expect(postgresRunning(dir)).toBe(false);
  }, 120_000);

  it('once a user exists, the banner says how to get a token and gives no command to create one', async () => {
    const dir = tempDir();
    const banner = async (env: Record<string, string>) => {
      const svc = await startOnTerminal(dir, env);
      try {
        await eventually(() => expect(svc.text()).toContain('Ctrl-C stops it'), { timeoutMs: 60_000, intervalMs: 100 });
        return { text: svc.text(), base: `http://127.0.0.1:${svc.port}` };
      } finally {
        await svc.stop();
      }
    };
    // The first admin made at this start, then a later start that names none.
    const first = await banner({ MDS_ADMIN_USERNAME: 'boss', MDS_ADMIN_PASSWORD: 'a long password' });
    const later = await banner({});
    expect(first.text).toContain(`A token:   curl -X POST -u boss:'<password>' ${first.base}/api/access-tokens/`);
    expect(later.text).toContain(`A token:   curl -X POST -u <username>:'<password>' ${later.base}/api/access-tokens/`);
    for (const { text } of [first, later]) {
      expect(text).not.toContain('No user exists yet');
      expect(text).not.toContain('users create');
      expect(text).not.toContain('MDS_ADMIN_USERNAME=');
    }
  }, 180_000);
});
