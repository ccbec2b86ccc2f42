import { Pool, PoolClient, types } from 'pg';
import type { Logger } from './logging';

// bigint columns (positions, counts) come back as JS numbers; positions stay far below 2^53.
types.setTypeParser(types.builtins.INT8, (value) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`bigint ${value} exceeds the safe integer range`);
  return n;
});

export type { Pool, PoolClient } from 'pg';

export function createPool(
  url: string,
  options: { max?: number; applicationName?: string; logger?: Logger; connectionTimeoutMs?: number; queryTimeoutMs?: number } = {},
): Pool {
  const pool = new Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'mds',
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
    ...(options.queryTimeoutMs ? { query_timeout: options.queryTimeoutMs } : {}),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (err) => options.logger?.warn({ err: err.message }, 'idle database connection failed'));
  return pool;
}

export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Quotes an SQL identifier (schema or table name built at run time). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
