import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Pool, PoolClient } from 'pg';
import { quoteIdent, withTransaction } from '#mds/platform';
import type { Projection } from './projection';

export type GenerationState = 'building' | 'live' | 'retired';

export interface Generation {
  name: string;
  generation: number;
  version: number;
  schemaName: string;
  state: GenerationState;
  checkpoint: number;
  updatedAt: string;
}

/** Folder of the catalog's own migrations, for the platform's migration runner. */
export const PROJECTION_CATALOG_MIGRATIONS = { component: 'projections', dir: path.join(__dirname, 'migrations') };

type Db = Pool | PoolClient;

const COLUMNS = `name, generation, version, schema_name AS "schemaName", state, checkpoint, to_json(updated_at)#>>'{}' AS "updatedAt"`;

export async function liveGeneration(db: Db, name: string, lock = false): Promise<Generation | undefined> {
  const { rows } = await db.query<Generation>(
    `SELECT ${COLUMNS} FROM mds_projections WHERE name = $1 AND state = 'live'${lock ? ' FOR UPDATE' : ''}`,
    [name],
  );
  return rows[0];
}

export async function getGeneration(db: Db, name: string, generation: number): Promise<Generation | undefined> {
  const { rows } = await db.query<Generation>(`SELECT ${COLUMNS} FROM mds_projections WHERE name = $1 AND generation = $2`, [name, generation]);
  return rows[0];
}

export async function listGenerations(db: Db): Promise<Generation[]> {
  const { rows } = await db.query<Generation>(`SELECT ${COLUMNS} FROM mds_projections ORDER BY name, generation`);
  return rows;
}

/**
 * Creates a generation: its schema and tables (the projection's migrations run inside it). The
 * first generation of a projection goes live at once, with its views; later ones start `building`.
 */
export async function createGeneration(pool: Pool, projection: Projection, options: { onlyIfNone?: boolean } = {}): Promise<Generation> {
  // The connection is released before the generation is read back: a caller holding one connection
  // while waiting for a second could exhaust the pool when every projection starts at once.
  const created = await withTransaction(pool, async (client) => {
    // Serialises concurrent creators of the same projection's generations.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`mds-projection-catalog:${projection.name}`]);
    const { rows } = await client.query<{ next: number; has_live: boolean }>(
      `SELECT coalesce(max(generation), 0) + 1 AS next, bool_or(state = 'live') IS TRUE AS has_live FROM mds_projections WHERE name = $1`,
      [projection.name],
    );
    const generation = rows[0].next;
    if (options.onlyIfNone && generation > 1) return { existing: true, generation: generation - 1 };
    const state: GenerationState = rows[0].has_live ? 'building' : 'live';
    const schemaName = `p_${projection.name}_${generation}`;
    await client.query(`CREATE SCHEMA ${quoteIdent(schemaName)}`);
    await client.query(`SET LOCAL search_path = ${quoteIdent(schemaName)}, public`);
    for (const file of fs.readdirSync(projection.migrationsDir).filter((f) => f.endsWith('.sql')).sort()) {
      await client.query(fs.readFileSync(path.join(projection.migrationsDir, file), 'utf8'));
    }
    await client.query(
      `INSERT INTO mds_projections (name, generation, version, schema_name, state) VALUES ($1, $2, $3, $4, $5)`,
      [projection.name, generation, projection.version, schemaName, state],
    );
    if (state === 'live') await pointViews(client, projection, schemaName);
    return { existing: false, generation };
  });
  if (created.existing) return (await liveGeneration(pool, projection.name)) ?? (await getGeneration(pool, projection.name, created.generation))!;
  return (await getGeneration(pool, projection.name, created.generation))!;
}

/**
 * Makes sure every projection has its tables and views, so readers never meet a missing relation
 * before the first projector has run. Safe to call from any number of processes at once.
 */
export async function ensureProjectionTables(pool: Pool, projections: Projection[]): Promise<void> {
  for (const p of projections) await createGeneration(pool, p, { onlyIfNone: true });
}

/** Replaces the public views of the projection's tables so they read from `schemaName`. */
export async function pointViews(client: PoolClient, projection: Projection, schemaName: string): Promise<void> {
  for (const table of projection.tables) {
    // DROP + CREATE (not CREATE OR REPLACE) so a new version may change columns; readers waiting
    // on the lock resolve the name again after commit and see the new view.
    await client.query(`DROP VIEW IF EXISTS public.${quoteIdent(table)}`);
    await client.query(`CREATE VIEW public.${quoteIdent(table)} AS SELECT * FROM ${quoteIdent(schemaName)}.${quoteIdent(table)}`);
  }
}

/** Drops the schemas of retired generations. Best effort: a schema still locked is left for next time. */
export async function dropRetiredGenerations(pool: Pool, name?: string): Promise<number> {
  const { rows } = await pool.query<{ name: string; generation: number; schema_name: string }>(
    `SELECT name, generation, schema_name FROM mds_projections WHERE state = 'retired' AND ($1::text IS NULL OR name = $1)`,
    [name ?? null],
  );
  let dropped = 0;
  for (const row of rows) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL lock_timeout = '5s'`);
      // The row first: a page still being applied to the generation holds it (mds_hold_generation).
      await client.query('DELETE FROM mds_projections WHERE name = $1 AND generation = $2', [row.name, row.generation]);
      await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(row.schema_name)} CASCADE`);
      await client.query('COMMIT');
      dropped++;
    } catch {
      await client.query('ROLLBACK').catch(() => undefined);
    } finally {
      client.release();
    }
  }
  return dropped;
}
