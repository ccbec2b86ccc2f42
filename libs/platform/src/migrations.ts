import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Pool } from 'pg';
import type { Logger } from './logging';

export interface MigrationSet {
  /** Owner of the migrations, e.g. "event-store"; names are unique per component. */
  component: string;
  /** Folder of `NNNN_name.sql` files applied in file-name order. */
  dir: string;
}

// One lock for all migration runs, so two processes starting together do not race.
const MIGRATION_LOCK = 0x6d64_7301;

export async function runMigrations(pool: Pool, sets: MigrationSet[], logger?: Logger): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS mds_migrations (
      component text NOT NULL,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (component, name))`);
    for (const set of sets) {
      const files = fs.readdirSync(set.dir).filter((f) => f.endsWith('.sql')).sort();
      const done = new Set(
        (await client.query<{ name: string }>('SELECT name FROM mds_migrations WHERE component = $1', [set.component])).rows.map((r) => r.name),
      );
      for (const file of files) {
        if (done.has(file)) continue;
        const sql = fs.readFileSync(path.join(set.dir, file), 'utf8');
        await client.query('BEGIN');
        try {
          await client.query(sql);
          await client.query('INSERT INTO mds_migrations (component, name) VALUES ($1, $2)', [set.component, file]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${set.component}/${file} failed: ${(err as Error).message}`);
        }
        applied.push(`${set.component}/${file}`);
        logger?.info({ migration: `${set.component}/${file}` }, 'migration applied');
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
  return applied;
}
