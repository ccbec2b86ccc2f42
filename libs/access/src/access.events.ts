import type { Role } from './roles';
import type { Scope } from './scopes';

// Stored event types: literal strings, never derived from class names. Schema versions live in metadata.
export const USER_CREATED = 'UserCreated';
/** Schema of UserCreated: 2 seals the password hash (1 kept it in clear; an upcaster seals those on read). */
export const USER_CREATED_SCHEMA = 2;
export const USER_LOGIN_FAILED = 'UserLoginFailed';
export const USER_AUTHENTICATED = 'UserAuthenticated';
export const USER_UNLOCKED = 'UserUnlocked';
/** A new password (its scrypt hash sealed, as in UserCreated); appended to the user's stream. */
export const USER_PASSWORD_CHANGED = 'UserPasswordChanged';
/** The user is gone: no login, no new token; their tokens are revoked (reason `user_deleted`). */
export const USER_DELETED = 'UserDeleted';
export const ACCESS_TOKEN_CREATED = 'AccessTokenCreated';
export const INTEGRATION_CREATED = 'IntegrationCreated';
/** A datasource of an integration (legacy plugins import through one); appended to the integration's stream. */
export const DATASOURCE_CREATED = 'DatasourceCreated';
/** A token stops working (revoked by someone, or its integration was disabled); appended to the token's stream. */
export const ACCESS_TOKEN_REVOKED = 'AccessTokenRevoked';
/** A token was used: its first use, then at most once a minute per token and API process (stream `token-use-<id>`). */
export const ACCESS_TOKEN_USED = 'AccessTokenUsed';
export const INTEGRATION_DISABLED = 'IntegrationDisabled';
export const INTEGRATION_ENABLED = 'IntegrationEnabled';

export const ACCESS_EVENT_TYPES = [
  USER_CREATED,
  USER_LOGIN_FAILED,
  USER_AUTHENTICATED,
  USER_UNLOCKED,
  USER_PASSWORD_CHANGED,
  USER_DELETED,
  ACCESS_TOKEN_CREATED,
  INTEGRATION_CREATED,
  DATASOURCE_CREATED,
  ACCESS_TOKEN_REVOKED,
  ACCESS_TOKEN_USED,
  INTEGRATION_DISABLED,
  INTEGRATION_ENABLED,
];

export interface UserCreated {
  user_id: string;
  username: string;
  /**
   * The scrypt hash, sealed with the service's secret key: a reader of the log (an auditor) must not
   * get what an offline attack on the password needs. The password itself is never stored.
   */
  password_hash_sealed: string;
  roles: Role[];
  /** The TOTP secret, sealed with the service's secret key (it must be readable to check codes). */
  totp_secret_sealed: string | null;
  created_at: string;
}

export interface UserLoginFailed {
  user_id: string;
  reason: 'password' | 'totp';
  at: string;
}

export interface UserAuthenticated {
  user_id: string;
  /** The TOTP time step whose code was used: that code (and older ones) are refused from now on. */
  totp_step: number | null;
  token_id: string;
  at: string;
}

export interface UserUnlocked {
  user_id: string;
  by: string;
  at: string;
}

export interface UserPasswordChanged {
  user_id: string;
  /** The new password's scrypt hash, sealed with the service's secret key (never in clear, as in UserCreated). */
  password_hash_sealed: string;
  by: string;
  at: string;
}

export interface UserDeleted {
  user_id: string;
  username: string;
  by: string;
  at: string;
}

export interface AccessTokenCreated {
  token_id: string;
  owner_id: string;
  name: string;
  /** sha256 of the token; the token itself is never stored. */
  token_hash: string;
  hint: string;
  created_by: string;
  transferred_roles: Role[];
  scopes: Scope[];
  created_at: string;
  /** When it stops working (ISO 8601); absent or null: never. */
  expires_at?: string | null;
}

export interface AccessTokenRevoked {
  token_id: string;
  owner_id: string;
  /** Who revoked it: `users/<id>`, `integrations/<id>` or `cli`. */
  revoked_by: string;
  /**
   * `revoked`: by DELETE /api/access-tokens/{id}/ or `mds tokens revoke`; `integration_disabled`: its
   * integration was; `user_deleted`: its user was (`mds users delete`).
   */
  reason: 'revoked' | 'integration_disabled' | 'user_deleted';
  at: string;
}

export interface AccessTokenUsed {
  token_id: string;
  at: string;
}

/** IntegrationDisabled and IntegrationEnabled: who switched it, and when. */
export interface IntegrationSwitched {
  integration_id: string;
  by: string;
  at: string;
}

export interface IntegrationCreated {
  integration_id: string;
  integration_name: string;
  parameters: { name: string; description: string };
  enabled: boolean;
  available_datasources: string[];
  datasources: unknown[];
  datatargets: unknown[];
  datatarget_templates: unknown[];
  configuration: Record<string, unknown>;
  created_by: string;
  created_at: string;
}

/** What a datasource imports: one of the import datatypes. */
export const DATASOURCE_DATATYPES = ['customers', 'products', 'events', 'sales'] as const;
export type DatasourceDatatype = (typeof DATASOURCE_DATATYPES)[number];

export interface DatasourceCreated {
  datasource_id: string;
  integration_id: string;
  name: string;
  datatype: DatasourceDatatype;
  created_by: string;
  created_at: string;
}

export type UserEvent =
  | { type: typeof USER_CREATED; data: UserCreated }
  | { type: typeof USER_LOGIN_FAILED; data: UserLoginFailed }
  | { type: typeof USER_AUTHENTICATED; data: UserAuthenticated }
  | { type: typeof USER_UNLOCKED; data: UserUnlocked }
  | { type: typeof USER_PASSWORD_CHANGED; data: UserPasswordChanged }
  | { type: typeof USER_DELETED; data: UserDeleted };

export type TokenEvent =
  | { type: typeof ACCESS_TOKEN_CREATED; data: AccessTokenCreated }
  | { type: typeof ACCESS_TOKEN_REVOKED; data: AccessTokenRevoked };

export type IntegrationEvent =
  | { type: typeof INTEGRATION_CREATED; data: IntegrationCreated }
  | { type: typeof DATASOURCE_CREATED; data: DatasourceCreated }
  | { type: typeof INTEGRATION_DISABLED; data: IntegrationSwitched }
  | { type: typeof INTEGRATION_ENABLED; data: IntegrationSwitched };

export const userStream = (userId: string) => `user-${userId}`;
export const tokenStream = (tokenId: string) => `token-${tokenId}`;
/** Uses are kept apart from the token's own stream, which a revocation reads whole. */
export const tokenUseStream = (tokenId: string) => `token-use-${tokenId}`;
export const integrationStream = (integrationId: string) => `integration-${integrationId}`;
