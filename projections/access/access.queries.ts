import type { Pool } from 'pg';
import type { DatasourceView, IntegrationView, Role, Scope } from '#mds/access';

export interface TokenRecord {
  tokenId: string;
  ownerId: string;
  scopes: Scope[];
  transferredRoles: Role[];
  /** Roles of the owning user (user-owned tokens act with them); empty for integrations. */
  ownerRoles: Role[];
  ownerExists: boolean;
}

export async function findTokenByHash(pool: Pool, tokenHash: string): Promise<TokenRecord | undefined> {
  const { rows } = await pool.query(
    `SELECT t.token_id, t.owner_id, t.scopes, t.transferred_roles, u.roles AS user_roles,
            (u.user_id IS NOT NULL OR i.integration_id IS NOT NULL) AS owner_exists
       FROM access_tokens t
       LEFT JOIN access_users u ON t.owner_id = 'users/' || u.user_id
       LEFT JOIN access_integrations i ON t.owner_id = 'integrations/' || i.integration_id
      WHERE t.token_hash = $1`,
    [tokenHash],
  );
  const r = rows[0];
  if (!r) return undefined;
  return { tokenId: r.token_id, ownerId: r.owner_id, scopes: r.scopes, transferredRoles: r.transferred_roles, ownerRoles: r.user_roles ?? [], ownerExists: r.owner_exists };
}

export async function countUsers(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM access_users');
  return rows[0].n;
}

/** The datasources of one integration, or of all, in the order they were created. */
export async function listDatasources(pool: Pool, options: { integrationId?: string } = {}): Promise<DatasourceView[]> {
  const { rows } = await pool.query<{ datasource: DatasourceView }>(
    `SELECT datasource FROM access_datasources WHERE $1::text IS NULL OR integration_id = $1 ORDER BY log_position`,
    [options.integrationId ?? null],
  );
  return rows.map((r) => r.datasource);
}

export async function findDatasource(pool: Pool, datasourceId: string): Promise<DatasourceView | undefined> {
  const { rows } = await pool.query<{ datasource: DatasourceView }>('SELECT datasource FROM access_datasources WHERE datasource_id = $1', [datasourceId]);
  return rows[0]?.datasource;
}

/** Integrations as the API shows them, `datasources` filled from the integration's datasources. */
export async function listIntegrations(pool: Pool, options: { integrationId?: string } = {}): Promise<IntegrationView[]> {
  const { rows } = await pool.query<{ integration: IntegrationView }>(
    `SELECT i.integration || jsonb_build_object('datasources', COALESCE(
              (SELECT jsonb_agg(d.datasource ORDER BY d.log_position) FROM access_datasources d WHERE d.integration_id = i.integration_id), '[]'::jsonb)) AS integration
       FROM access_integrations i
      WHERE $1::text IS NULL OR i.integration_id = $1
      ORDER BY i.created_at, i.integration_id`,
    [options.integrationId ?? null],
  );
  return rows.map((r) => r.integration);
}

export async function findIntegration(pool: Pool, integrationId: string): Promise<IntegrationView | undefined> {
  return (await listIntegrations(pool, { integrationId }))[0];
}
