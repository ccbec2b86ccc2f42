import { randomUUID } from 'node:crypto';
import type { EventStore } from '#mds/event-store';
import { ACCESS_TOKEN_CREATED, tokenStream, type AccessTokenCreated } from '../access.events';
import { generateAccessToken, hashAccessToken, tokenHint } from '../credentials/access-token';
import type { Role } from '../roles';
import type { Scope } from '../scopes';

/** The spec's Access token resource; `token` only in the creation response. */
export interface AccessTokenView {
  id: string;
  owner_id: string;
  created_at: string;
  name: string;
  token?: string;
  hint: string;
  created_by: string;
  transferred_roles: Role[];
  scopes: Scope[];
  /** null: never expires. */
  expires_at: string | null;
}

export interface MintedToken {
  access_token: AccessTokenView & { token: string };
  position: number;
}

export async function mintToken(
  store: EventStore,
  input: { ownerId: string; name: string; createdBy: string; scopes: Scope[]; transferredRoles: Role[]; now: string; expiresAt?: string | null; tokenId?: string; requestId?: string; byToken?: string },
): Promise<MintedToken> {
  const token = generateAccessToken();
  const tokenId = input.tokenId ?? randomUUID();
  const data: AccessTokenCreated = {
    token_id: tokenId,
    owner_id: input.ownerId,
    name: input.name,
    token_hash: hashAccessToken(token),
    hint: tokenHint(token),
    created_by: input.createdBy,
    transferred_roles: input.transferredRoles,
    scopes: input.scopes,
    created_at: input.now,
    expires_at: input.expiresAt ?? null,
  };
  const result = await store.append(tokenStream(tokenId), [{ type: ACCESS_TOKEN_CREATED, data, metadata: { actor: input.createdBy, token_id: input.byToken, request_id: input.requestId } }], {
    expectedRevision: 'no_stream',
  });
  return {
    access_token: {
      id: tokenId,
      owner_id: data.owner_id,
      created_at: data.created_at,
      name: data.name,
      token,
      hint: data.hint,
      created_by: data.created_by,
      transferred_roles: data.transferred_roles,
      scopes: data.scopes,
      expires_at: data.expires_at ?? null,
    },
    position: result.position,
  };
}

export function tokenName(input: unknown): string {
  if (input === undefined || input === null) return '';
  if (typeof input !== 'string' || input.length > 200) throw new Error('name must be a string of at most 200 characters');
  return input;
}
