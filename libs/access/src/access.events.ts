import type { Role } from './roles';
import type { Scope } from './scopes';

// Stored event types: literal strings, never derived from class names. Schema versions live in metadata.
export const USER_CREATED = 'UserCreated';
export const USER_LOGIN_FAILED = 'UserLoginFailed';
export const USER_AUTHENTICATED = 'UserAuthenticated';
export const USER_UNLOCKED = 'UserUnlocked';
export const ACCESS_TOKEN_CREATED = 'AccessTokenCreated';
export const INTEGRATION_CREATED = 'IntegrationCreated';
/** A datasource of an integration (legacy plugins import through one); appended to the integration's stream. */
export const DATASOURCE_CREATED = 'DatasourceCreated';

export const ACCESS_EVENT_TYPES = [USER_CREATED, USER_LOGIN_FAILED, USER_AUTHENTICATED, USER_UNLOCKED, ACCESS_TOKEN_CREATED, INTEGRATION_CREATED, DATASOURCE_CREATED];

export interface UserCreated {
  user_id: string;
  username: string;
  /** scrypt hash; the password itself is never stored. */
  password_hash: string;
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
  | { type: typeof USER_UNLOCKED; data: UserUnlocked };

export const userStream = (userId: string) => `user-${userId}`;
export const tokenStream = (tokenId: string) => `token-${tokenId}`;
export const integrationStream = (integrationId: string) => `integration-${integrationId}`;
