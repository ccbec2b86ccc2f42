import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '#mds/platform';

export interface BenchDatabase {
  /** URL of a fresh database for this run. */
  url: string;
  dataDir: string;
  serverVersion: string;
  close(): Promise<void>;
}

/**
 * A fresh database on DATABASE_URL's server, or on an embedded PostgreSQL started for the run (with
 * pg_stat_statements loaded when asked: a profile's per-statement timings).
 */
export async function benchDatabase(options: { pgStatStatements?: boolean } = {}): Promise<BenchDatabase> {
  let url = process.env.DATABASE_URL;
  let stopPg = async () => undefined as unknown;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-bench-'));
  if (!url) {
    const flags = options.pgStatStatements ? ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all'] : [];
    const pg = await startEmbeddedPostgres({ dataDir, database: 'postgres', flags });
    url = pg.url;
    stopPg = () => pg.stop();
  }
  const name = `mds_bench_${Date.now()}`;
  const admin = new Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const serverVersion = (await admin.query('SHOW server_version')).rows[0].server_version;
  const dbUrl = new URL(url);
  dbUrl.pathname = `/${name}`;
  return {
    url: dbUrl.toString(),
    dataDir,
    serverVersion,
    async close() {
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
      await stopPg();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
