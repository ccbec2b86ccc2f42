import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { Client } from 'pg';
import { benchDatabase, type BenchDatabase } from './bench-database';

const ROOT = path.resolve(__dirname, '../..');

export interface ServiceProcess {
  db: BenchDatabase;
  port: number;
  pid: number;
  headers: Record<string, string>;
  /** A second connection for baselines (COPY into scratch tables). */
  copyClient: Client;
  /** Peak resident memory of the service process so far (VmHWM), in MiB. */
  peakRssMiB(): number;
  /** Starts the peak over from the current RSS (Linux: clear_refs 5), so the next peakRssMiB is of what follows. */
  resetPeakRss(): void;
  close(): Promise<void>;
}

/** A TCP port free on loopback just now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function startOnce(port: number, db: BenchDatabase, password: string, env: Record<string, string>, root: string): Promise<{ child: ChildProcess; exited: Promise<unknown>; warnings: string[] } | { error: string }> {
  // BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the service (written when it stops).
  const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, 'bin', 'mds.js'), 'start'], {
    cwd: root,
    env: {
      ...process.env, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', MDS_DATA_DIR: db.dataDir,
      MDS_RATE_LIMIT_PER_MINUTE: '0', MDS_PASSWORD_HASH_COST: '10', MDS_ADMIN_USERNAME: 'bench', MDS_ADMIN_PASSWORD: password,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // The service's warnings and errors (LOG_LEVEL=warn), shown on the console when it stops: a stall
  // or a restart during a measurement leaves its trace there.
  const warnings: string[] = [];
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-4000);
    for (const line of d.toString().split('\n')) if (/"level":"(warn|error|fatal)"/.test(line) && warnings.length < 100) warnings.push(line.slice(0, 500));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) return { error: `mds start exited with ${child.exitCode}:\n${output}` };
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200) return { child, exited, warnings };
    } catch {
      // not listening yet
    }
    if (i > 600) {
      child.kill('SIGKILL');
      return { error: `mds start did not become healthy in 60 s:\n${output}` };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * `mds start` as a user runs it (API, projector and outlet worker in one process), on a fresh
 * database, as a child process: the load generator (this process) is measured apart from the service.
 * `root` is the checkout whose build runs (another commit's, built beside this one, for before/after).
 */
export async function startServiceProcess(env: Record<string, string> = {}, root = ROOT, options: { pgStatStatements?: boolean } = {}): Promise<ServiceProcess> {
  const db = await benchDatabase(options);
  const password = 'bench password 0123456789';
  let port = 0;
  let child: ChildProcess | undefined;
  let exited: Promise<unknown> = Promise.resolve();
  let warnings: string[] = [];
  // A start that fails right after the previous benchmark's cleanup (a slow first connection) is tried again.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    const started = await startOnce(port, db, password, env, root);
    if ('child' in started) {
      ({ child, exited, warnings } = started);
      break;
    }
    if (attempt === 3) throw new Error(started.error);
    process.stderr.write(`mds start failed (attempt ${attempt}), trying again\n`);
  }
  const base = `http://127.0.0.1:${port}`;
  const res = await fetch(`${base}/api/access-tokens/`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`bench:${password}`).toString('base64')}` } });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  const token = ((await res.json()) as { access_token: { token: string } }).access_token.token;
  const copyClient = new Client({ connectionString: db.url });
  await copyClient.connect();
  return {
    db,
    port,
    pid: child!.pid!,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    copyClient,
    peakRssMiB() {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child!.pid}/status`, 'utf8'));
        return m ? Math.round(Number(m[1]) / 1024) : NaN;
      } catch {
        return NaN;
      }
    },
    resetPeakRss() {
      try {
        fs.writeFileSync(`/proc/${child!.pid}/clear_refs`, '5');
      } catch {
        // Not Linux, or not allowed: the peak stays the process's whole life's.
      }
    },
    async close() {
      await copyClient.end();
      child!.kill('SIGTERM');
      await exited;
      if (warnings.length > 0) process.stderr.write(`mds start logged ${warnings.length} warning or error line(s):\n${warnings.join('\n')}\n`);
      await db.close();
    },
  };
}
