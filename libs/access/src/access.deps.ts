import { createHash } from 'node:crypto';
import type { SecretBox } from '#mds/platform';
import { permissionsOf, type Role } from './roles';
import type { Scope } from './scopes';

/** Injection token of what the access handlers need besides the event store. */
export const ACCESS_DEPS = Symbol('ACCESS_DEPS');

export interface AccessDeps {
  secrets: SecretBox;
  passwordHashCost: number;
  lockoutFailures: number;
  now?: () => Date;
}

/** The caller of a request, as the authentication hook found it. */
export interface Principal {
  tokenId: string;
  ownerId: string;
  kind: 'user' | 'integration';
  roles: Role[];
  scopes: Scope[];
  /** When the token the request came with expires (null: never); the tokens it creates expire no later. */
  expiresAt?: string | null;
}

/** May this caller manage access (admin roles, or an integration token with them transferred)? */
export const managesAccess = (p: Principal) => permissionsOf(p.roles, p.kind === 'integration').has('access:manage');

/** Who acts on tokens and integrations: recorded in the events, and whether they manage access (admins, `mds`). */
export interface AccessActor {
  actor: string;
  manages: boolean;
  tokenId?: string;
  requestId?: string;
}

export const actorOf = (p: Principal, requestId?: string): AccessActor => ({ actor: p.ownerId, manages: managesAccess(p), tokenId: p.tokenId, requestId });

/** `mds` on the command line: an operator with the database's credentials. */
export const CLI_ACTOR: AccessActor = { actor: 'cli', manages: true };

export const actorMetadata = (by: AccessActor) => ({ actor: by.actor, token_id: by.tokenId, request_id: by.requestId });

/**
 * Injection token of a read-model port: the ids of an owner's tokens that are not revoked, as the
 * access read model has them once it has caught up with the log (disabling an integration revokes them).
 */
export const OWNER_TOKENS = Symbol('OWNER_TOKENS');
export type OwnerTokens = (ownerId: string) => Promise<string[]>;

/**
 * User ids derive from the username (case-insensitive), so a login finds the user's stream without
 * a look-up and two creations of one username collide on the stream (optimistic concurrency).
 */
export function userIdFor(username: string): string {
  return createHash('sha256').update(`user:${username.trim().toLowerCase()}`).digest('hex').slice(0, 24);
}

export const nowIso = (deps: AccessDeps) => (deps.now ? deps.now() : new Date()).toISOString();
