import type { Pool } from 'pg';
import type { Role, Scope } from '../../libs/access/src';

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
