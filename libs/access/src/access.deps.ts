import { createHash } from 'node:crypto';
import type { SecretBox } from '#mds/platform';
import type { Role } from './roles';
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
}

/**
 * User ids derive from the username (case-insensitive), so a login finds the user's stream without
 * a look-up and two creations of one username collide on the stream (optimistic concurrency).
 */
export function userIdFor(username: string): string {
  return createHash('sha256').update(`user:${username.trim().toLowerCase()}`).digest('hex').slice(0, 24);
}

export const nowIso = (deps: AccessDeps) => (deps.now ? deps.now() : new Date()).toISOString();
