import type { Pool } from 'pg';
import type { DatasourceView, IntegrationView, Role, Scope } from '#mds/access';
import { waitForProjection } from '../runtime/consistency';
import type { ReadDeps } from '../runtime/read-side';
import { timestampSql } from '../runtime/timestamp-sql';

export interface TokenRecord {
  tokenId: string;
  ownerId: string;
  scopes: Scope[];
  transferredRoles: Role[];
  /** Roles of the owning user (user-owned tokens act with them); empty for integrations. */
  ownerRoles: Role[];
  ownerExists: boolean;
  /** False when the token's integration is disabled. */
  ownerEnabled: boolean;
  revoked: boolean;
  expiresAt: string | null;
  /** By the database's clock, the same for every API process. */
  expired: boolean;
  lastUsedAt: string | null;
}

/** A token's requests in the current one-minute window, this one included, and the seconds left of the window. */
export interface RateCount {
  count: number;
  resetSeconds: number;
}

const iso = (v: Date | null): string | null => (v ? v.toISOString() : null);

/**
 * The one statement an authenticated request costs: the token by its hash (with its owner, whether it
 * is revoked or expired, and whether its integration is enabled) and, when `perMinute` > 0 and the
 * token works, its request counted in mds_rate_limits, shared by every API process (fixed one-minute
 * windows by the database's clock). With the rate limit off, API processes keep what it finds for a
 * while (TokenResolver, emptied by the access projection's notifications).
 */
export async function authenticateToken(pool: Pick<Pool, 'query'>, tokenHash: string, perMinute: number): Promise<{ token: TokenRecord; rate?: RateCount } | undefined> {
  const { rows } = await pool.query({
    // Prepared once per connection: planning the statement costs more than running it.
    name: 'mds-authenticate-token',
    text: `WITH t AS (
       SELECT t.token_id, t.owner_id, t.scopes, t.transferred_roles, t.expires_at, t.last_used_at, t.revoked_at IS NOT NULL AS revoked,
              COALESCE(t.expires_at <= now(), false) AS expired, u.roles AS user_roles,
              (u.user_id IS NOT NULL OR i.integration_id IS NOT NULL) AS owner_exists, COALESCE(i.enabled, true) AS owner_enabled
         FROM access_tokens t
         LEFT JOIN access_users u ON t.owner_id LIKE 'users/%' AND u.user_id = substr(t.owner_id, 7)
         LEFT JOIN access_integrations i ON t.owner_id LIKE 'integrations/%' AND i.integration_id = substr(t.owner_id, 14)
        WHERE t.token_hash = $1
     ), hit AS (
       INSERT INTO mds_rate_limits AS r (token_id, window_start, count)
       SELECT token_id, to_timestamp(floor(extract(epoch FROM now()) / 60) * 60), 1 FROM t
        WHERE $2::int > 0 AND owner_exists AND owner_enabled AND NOT revoked AND NOT expired
       ON CONFLICT (token_id) DO UPDATE
          SET count = CASE WHEN r.window_start = EXCLUDED.window_start THEN r.count + 1 ELSE 1 END, window_start = EXCLUDED.window_start
       RETURNING r.count, ceil(extract(epoch FROM r.window_start + interval '1 minute' - now()))::int AS reset_seconds
     )
     SELECT t.*, hit.count, hit.reset_seconds FROM t LEFT JOIN hit ON true`,
    values: [tokenHash, perMinute],
  });
  const r = rows[0];
  if (!r) return undefined;
  const token: TokenRecord = {
    tokenId: r.token_id,
    ownerId: r.owner_id,
    scopes: r.scopes,
    transferredRoles: r.transferred_roles,
    ownerRoles: r.user_roles ?? [],
    ownerExists: r.owner_exists,
    ownerEnabled: r.owner_enabled,
    revoked: r.revoked,
    expiresAt: iso(r.expires_at),
    expired: r.expired,
    lastUsedAt: iso(r.last_used_at),
  };
  return { token, rate: r.count === null ? undefined : { count: r.count, resetSeconds: Math.max(1, r.reset_seconds) } };
}

/** A token by its hash, as authentication finds it (nothing counted). */
export async function findTokenByHash(pool: Pool, tokenHash: string): Promise<TokenRecord | undefined> {
  return (await authenticateToken(pool, tokenHash, 0))?.token;
}

/** An access token as operators list it (never its value). */
export interface AccessTokenListed {
  id: string;
  owner_id: string;
  name: string;
  hint: string;
  created_at: string;
  created_by: string;
  transferred_roles: Role[];
  scopes: Scope[];
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  revoked_by: string | null;
}

const TOKEN_COLUMNS = 'token_id, owner_id, name, hint, created_at, created_by, transferred_roles, scopes, expires_at, last_used_at, revoked_at, revoked_by, log_position';

const listed = (r: Record<string, any>): AccessTokenListed => ({
  id: r.token_id,
  owner_id: r.owner_id,
  name: r.name,
  hint: r.hint,
  created_at: iso(r.created_at)!,
  created_by: r.created_by,
  transferred_roles: r.transferred_roles,
  scopes: r.scopes,
  expires_at: iso(r.expires_at),
  last_used_at: iso(r.last_used_at),
  revoked_at: iso(r.revoked_at),
  revoked_by: r.revoked_by,
});

/**
 * Access tokens in the order they were created, one owner's or everyone's, revoked ones only when
 * asked for; `after` is the log position of the last one of the previous page. `next` is the cursor
 * of the next page (null when this one is the last).
 */
export async function listAccessTokens(
  pool: Pool,
  options: { ownerId?: string; includeRevoked: boolean; after?: number; limit: number },
): Promise<{ tokens: AccessTokenListed[]; next: number | null }> {
  const { rows } = await pool.query(
    `SELECT ${TOKEN_COLUMNS} FROM access_tokens
      WHERE ($1::text IS NULL OR owner_id = $1) AND ($2 OR revoked_at IS NULL) AND log_position > $3
      ORDER BY log_position LIMIT $4`,
    [options.ownerId ?? null, options.includeRevoked, options.after ?? 0, options.limit + 1],
  );
  const page = rows.slice(0, options.limit);
  return { tokens: page.map(listed), next: rows.length > options.limit ? Number(page[page.length - 1].log_position) : null };
}

export async function findAccessToken(pool: Pool, tokenId: string): Promise<AccessTokenListed | undefined> {
  const { rows } = await pool.query(`SELECT ${TOKEN_COLUMNS} FROM access_tokens WHERE token_id = $1`, [tokenId]);
  return rows[0] ? listed(rows[0]) : undefined;
}

/** The ids of an owner's tokens that are not revoked, once the read model has caught up with the log (or after 5 s). */
export async function activeTokenIds(read: ReadDeps, ownerId: string): Promise<string[]> {
  await waitForProjection(read.pool, 'access', await read.store.headPosition(), { timeoutMs: 5000, notifications: read.notifications }).catch(() => undefined);
  const { rows } = await read.pool.query<{ token_id: string }>('SELECT token_id FROM access_tokens WHERE owner_id = $1 AND revoked_at IS NULL ORDER BY log_position', [ownerId]);
  return rows.map((r) => r.token_id);
}

/** A user as operators list them (never a password hash or TOTP secret: the read model has none). */
export interface UserListed {
  user_id: string;
  username: string;
  roles: Role[];
  totp: boolean;
  /** Failed logins in a row; the account is locked from MDS_LOGIN_LOCKOUT_FAILURES on. */
  failed_logins: number;
  created_at: string;
}

/** Every user, oldest first. */
export async function listUsers(pool: Pool): Promise<UserListed[]> {
  const { rows } = await pool.query('SELECT user_id, username, roles, totp, consecutive_failures, created_at FROM access_users ORDER BY created_at, username');
  return rows.map((r) => ({ user_id: r.user_id, username: r.username, roles: r.roles, totp: r.totp, failed_logins: r.consecutive_failures, created_at: iso(r.created_at)! }));
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

/** An integration's token as its integration lists it. */
export type IntegrationToken = Pick<AccessTokenListed, 'id' | 'name' | 'hint' | 'created_at' | 'expires_at' | 'last_used_at' | 'scopes'>;

const isoSql = timestampSql;

/**
 * Integrations as the API shows them, `datasources` filled from the integration's datasources and
 * `tokens` with its tokens that are not revoked (never their values).
 */
export async function listIntegrations(pool: Pool, options: { integrationId?: string } = {}): Promise<Array<IntegrationView & { tokens: IntegrationToken[] }>> {
  const { rows } = await pool.query<{ integration: IntegrationView & { tokens: IntegrationToken[] } }>(
    `SELECT i.integration || jsonb_build_object('datasources', COALESCE(
              (SELECT jsonb_agg(d.datasource ORDER BY d.log_position) FROM access_datasources d WHERE d.integration_id = i.integration_id), '[]'::jsonb))
                          || jsonb_build_object('tokens', COALESCE(
              (SELECT jsonb_agg(jsonb_build_object('id', t.token_id, 'name', t.name, 'hint', t.hint, 'created_at', ${isoSql('t.created_at')},
                                                   'expires_at', ${isoSql('t.expires_at')}, 'last_used_at', ${isoSql('t.last_used_at')}, 'scopes', t.scopes) ORDER BY t.log_position)
                 FROM access_tokens t WHERE t.owner_id = 'integrations/' || i.integration_id AND t.revoked_at IS NULL), '[]'::jsonb)) AS integration
       FROM access_integrations i
      WHERE $1::text IS NULL OR i.integration_id = $1
      ORDER BY i.created_at, i.integration_id`,
    [options.integrationId ?? null],
  );
  return rows.map((r) => r.integration);
}

export async function findIntegration(pool: Pool, integrationId: string): Promise<(IntegrationView & { tokens: IntegrationToken[] }) | undefined> {
  return (await listIntegrations(pool, { integrationId }))[0];
}
