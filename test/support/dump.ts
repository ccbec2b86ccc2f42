import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { eventLogEnv, storedEvents } from './database';

const run = promisify(execFile);

/** The major version of the `pg_dump` on PATH (or PG_DUMP), or undefined when there is none. */
async function pgDumpMajor(bin: string): Promise<number | undefined> {
  try {
    const { stdout } = await run(bin, ['--version']);
    return Number(/(\d+)(\.\d+)?/.exec(stdout)?.[1]);
  } catch {
    return undefined;
  }
}

/**
 * Everything the service stores for this database, as text: the database and, when the event log is
 * on EventStoreDB (the double), every event that holds as stored.
 */
export async function dumpService(url: string): Promise<{ text: string; how: string }> {
  const dump = await dumpDatabase(url);
  if (!eventLogEnv(url).EVENTSTORE_URL) return dump;
  const log = (await storedEvents(url)).map((e) => `${e.stream} ${e.type} ${e.data} ${e.metadata}`).join('\n');
  return { text: `${dump.text}\n-- the EventStoreDB log\n${log}`, how: `${dump.how}, and every event of the EventStoreDB log` };
}

/**
 * Everything the database holds, as text: `pg_dump` of it when a pg_dump at least as new as the
 * server is installed (PG_DUMP names one; Debian's 15 dumps a `DATABASE_URL` server of 15), otherwise
 * the text of every row of every table in every schema (what pg_dump's COPY sections hold: the
 * embedded PostgreSQL of `npm test` is newer than any pg_dump installed here, and pg_dump refuses a
 * newer server). `how` says which.
 */
export async function dumpDatabase(url: string): Promise<{ text: string; how: string }> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const server = Math.floor(Number((await client.query('SHOW server_version_num')).rows[0].server_version_num) / 10000);
    const bin = process.env.PG_DUMP ?? 'pg_dump';
    const major = await pgDumpMajor(bin);
    if (major !== undefined && major >= server) {
      const { stdout } = await run(bin, ['--dbname', url, '--no-owner'], { maxBuffer: 1 << 30 });
      return { text: stdout, how: `pg_dump ${major}` };
    }
    const { rows: tables } = await client.query<{ schema: string; name: string }>(
      `SELECT n.nspname AS schema, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%'
        ORDER BY 1, 2`,
    );
    const parts: string[] = [];
    for (const t of tables) {
      const ident = `"${t.schema.replace(/"/g, '""')}"."${t.name.replace(/"/g, '""')}"`;
      const { rows } = await client.query<{ row: string }>(`SELECT x::text AS row FROM ${ident} x`);
      parts.push(`-- ${ident}\n${rows.map((r) => r.row).join('\n')}`);
    }
    return { text: parts.join('\n'), how: `every row of ${tables.length} tables (no pg_dump ${server} or newer installed; found ${major ?? 'none'})` };
  } finally {
    await client.end();
  }
}
