import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { eventLogEnv } from './database';

export const ROOT = path.resolve(__dirname, '../..');
export const CLI = path.join(ROOT, 'bin', 'mds.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built `mds` CLI as a child process and collects its output. Its event log is the test
 * database's (the double's, in the EventStoreDB e2e run), never an EVENTSTORE_URL the tests were
 * started with: that one is for the event-store contract alone.
 */
export function runCli(args: string[], env: Record<string, string | undefined>, timeoutMs = 120_000, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, EVENTSTORE_URL: undefined, ...eventLogEnv(env.DATABASE_URL), ...env }, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mds ${args.join(' ')} timed out\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts a long-running `mds` command; `output()` returns what it has printed so far. */
export function startCli(args: string[], env: Record<string, string | undefined>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, EVENTSTORE_URL: undefined, ...eventLogEnv(env.DATABASE_URL), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** A TCP port free on loopback just now, for a service a test starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
