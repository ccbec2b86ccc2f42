import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { createApiApp } from '../apps/api/src/api.app';
import { CreateUserCommand, CreateUserHandler, mintToken } from '../libs/access/src';
import { loadConfig } from '../libs/platform/src';
import { openRuntime, type Runtime } from '../libs/runtime/src';
import { accessProjection, Projector, waitForProjection, type Projection } from '../projections';
import { benchDatabase, type BenchDatabase } from './bench-database';

export interface BenchService {
  db: BenchDatabase;
  runtime: Runtime;
  port: number;
  headers: Record<string, string>;
  /** A second connection for the baseline (COPY into scratch tables). */
  copyClient: Client;
  close(): Promise<void>;
}

/** The API and a projector of these read models on a fresh database, and an admin token, as a user runs them. */
export async function startBenchService(projections: Projection[], env: Record<string, string> = {}): Promise<BenchService> {
  const db = await benchDatabase();
  const config = loadConfig({ ...env, DATABASE_URL: db.url, LOG_LEVEL: 'warn', MDS_RATE_LIMIT_PER_MINUTE: '0', MDS_SECRET_KEY: 'c'.repeat(64), MDS_PASSWORD_HASH_COST: '10', MDS_DATA_DIR: db.dataDir });
  const runtime = await openRuntime(config, { projections: [accessProjection, ...projections] });
  const projector = new Projector(runtime.runnerDeps(), runtime.projections);
  await projector.start();
  const app = await createApiApp(runtime);
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  const user = await new CreateUserHandler(runtime.store, runtime.accessDeps).execute(new CreateUserCommand('bench', 'bench password', ['admin']));
  const minted = await mintToken(runtime.store, { ownerId: `users/${user.user_id}`, name: 'bench', createdBy: 'bench', scopes: [], transferredRoles: [], now: new Date().toISOString() });
  await waitForProjection(runtime.pool, 'access', minted.position);
  const copyClient = new Client({ connectionString: db.url });
  await copyClient.connect();
  return {
    db,
    runtime,
    port,
    headers: { authorization: `Bearer ${minted.access_token.token}`, 'content-type': 'application/json' },
    copyClient,
    async close() {
      await copyClient.end();
      await app.close();
      await projector.stop();
      await runtime.close();
      await db.close();
    },
  };
}

/** Rows per second of a COPY (CSV) of these lines into `table`, emptied afterwards. */
export async function copyRate(client: Client, table: string, lines: string[]): Promise<number> {
  const t = process.hrtime.bigint();
  await pipeline(Readable.from(lines), client.query(copyFrom(`COPY ${table} FROM STDIN WITH (FORMAT csv)`)));
  const rate = lines.length / (Number(process.hrtime.bigint() - t) / 1e9);
  await client.query(`TRUNCATE ${table}`);
  return rate;
}

export const csvLine = (values: unknown[]) => values.map((v) => `"${String(v).replace(/"/g, '""')}"`).join(',') + '\n';

/**
 * Imports `records` through `path` in requests of `perRequest` (body `{key: [...]}`), one request after
 * another as a plugin does; returns records/s when all were accepted and when the last run completed.
 */
export async function importRates(service: BenchService, path: string, key: string, records: unknown[], perRequest: number): Promise<{ accepted: number; readable: number }> {
  const t = process.hrtime.bigint();
  let lastRun = '';
  for (let i = 0; i < records.length; i += perRequest) {
    const res = await fetch(`http://127.0.0.1:${service.port}${path}`, { method: 'POST', headers: service.headers, body: JSON.stringify({ [key]: records.slice(i, i + perRequest) }) });
    const body = (await res.json()) as { run_id: string; rejected: number };
    if (res.status !== 200 || body.rejected !== 0) throw new Error(`import failed: ${res.status} ${JSON.stringify(body).slice(0, 500)}`);
    lastRun = body.run_id;
  }
  const accepted = records.length / (Number(process.hrtime.bigint() - t) / 1e9);
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${service.port}/api/runs/${lastRun}/`, { headers: service.headers });
    if (((await res.json()) as { state: string }).state === 'completed') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { accepted, readable: records.length / (Number(process.hrtime.bigint() - t) / 1e9) };
}

/** One line of the side-by-side table. */
export function ratioRow(scenario: string, mds: number, baseline: number): string {
  const f = (x: number) => Math.round(x).toLocaleString('en');
  return `| ${scenario} | ${f(mds)} | ${f(baseline)} | ${(mds / baseline).toFixed(2)} |`;
}
