import * as path from 'node:path';
import {
  ACCESS_EVENT_TYPES,
  ACCESS_TOKEN_CREATED,
  ACCESS_TOKEN_REVOKED,
  ACCESS_TOKEN_USED,
  INTEGRATION_DISABLED,
  INTEGRATION_ENABLED,
  DATASOURCE_CREATED,
  datasourceView,
  INTEGRATION_CREATED,
  integrationView,
  USER_AUTHENTICATED,
  USER_CREATED,
  USER_DELETED,
  USER_LOGIN_FAILED,
  USER_UNLOCKED,
  type AccessTokenCreated,
  type AccessTokenRevoked,
  type AccessTokenUsed,
  type DatasourceCreated,
  type IntegrationCreated,
  type UserCreated,
  type UserDeleted,
} from '#mds/access';
import type { Projection } from '../runtime/projection';

/**
 * Notified (in the applying transaction, so delivered at its commit) when a page changed tokens, users
 * or integrations: API processes that keep tokens they found forget them (TokenResolver).
 */
export const ACCESS_CHANNEL = 'mds_access';

/** What a token's authentication does not depend on: no notification for these. */
const UNANNOUNCED = new Set([ACCESS_TOKEN_USED, USER_LOGIN_FAILED, USER_AUTHENTICATED, DATASOURCE_CREATED]);

/** Access events are few (logins, tokens), so each is one statement, applied in log order. */
export const accessProjection: Projection = {
  name: 'access',
  // 2: datasources (0002_datasources.sql). 3: expiry, last use, revocation, integrations switched (0003_token_controls.sql).
  // 4: users deleted, their tokens with them (UserPasswordChanged changes nothing here: no hashes in the read model).
  version: 4,
  eventTypes: ACCESS_EVENT_TYPES,
  tables: ['access_users', 'access_tokens', 'access_integrations', 'access_datasources'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events, tx) {
    if (events.some((e) => !UNANNOUNCED.has(e.type))) await tx.query(`SELECT pg_notify('${ACCESS_CHANNEL}', '')`);
    for (const e of events) {
      switch (e.type) {
        case USER_CREATED: {
          const d = e.data as UserCreated;
          await tx.query(
            `INSERT INTO access_users (user_id, username, roles, totp, created_at) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (user_id) DO NOTHING`,
            [d.user_id, d.username, d.roles, d.totp_secret_sealed !== null, d.created_at],
          );
          break;
        }
        case USER_LOGIN_FAILED:
          await tx.query('UPDATE access_users SET consecutive_failures = consecutive_failures + 1 WHERE user_id = $1', [(e.data as { user_id: string }).user_id]);
          break;
        case USER_AUTHENTICATED:
        case USER_UNLOCKED:
          await tx.query('UPDATE access_users SET consecutive_failures = 0 WHERE user_id = $1', [(e.data as { user_id: string }).user_id]);
          break;
        case USER_DELETED: {
          // Its tokens are refused with it, in the same transaction: the AccessTokenRevoked events the
          // deletion appends next find them revoked already (and a token of a later user of the name stays dead).
          const d = e.data as UserDeleted;
          await tx.query('DELETE FROM access_users WHERE user_id = $1', [d.user_id]);
          await tx.query(`UPDATE access_tokens SET revoked_at = $2, revoked_by = $3 WHERE owner_id = 'users/' || $1 AND revoked_at IS NULL`, [d.user_id, d.at, d.by]);
          break;
        }
        case ACCESS_TOKEN_CREATED: {
          const d = e.data as AccessTokenCreated;
          await tx.query(
            `INSERT INTO access_tokens (token_id, token_hash, owner_id, name, hint, created_by, transferred_roles, scopes, created_at, expires_at, log_position)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (token_id) DO NOTHING`,
            [d.token_id, d.token_hash, d.owner_id, d.name, d.hint, d.created_by, d.transferred_roles, JSON.stringify(d.scopes), d.created_at, d.expires_at ?? null, e.position],
          );
          break;
        }
        case ACCESS_TOKEN_REVOKED: {
          const d = e.data as AccessTokenRevoked;
          await tx.query('UPDATE access_tokens SET revoked_at = $2, revoked_by = $3 WHERE token_id = $1 AND revoked_at IS NULL', [d.token_id, d.at, d.revoked_by]);
          break;
        }
        case ACCESS_TOKEN_USED: {
          // Processes record uses independently: the latest wins, in whatever order they commit.
          const d = e.data as AccessTokenUsed;
          await tx.query('UPDATE access_tokens SET last_used_at = GREATEST(last_used_at, $2::timestamptz) WHERE token_id = $1', [d.token_id, d.at]);
          break;
        }
        case INTEGRATION_DISABLED:
        case INTEGRATION_ENABLED: {
          const enabled = e.type === INTEGRATION_ENABLED;
          await tx.query(`UPDATE access_integrations SET enabled = $2, integration = jsonb_set(integration, '{enabled}', to_jsonb($2::boolean)) WHERE integration_id = $1`, [
            (e.data as { integration_id: string }).integration_id,
            enabled,
          ]);
          break;
        }
        case INTEGRATION_CREATED: {
          const d = e.data as IntegrationCreated;
          await tx.query(
            `INSERT INTO access_integrations (integration_id, name, integration, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (integration_id) DO NOTHING`,
            [d.integration_id, d.parameters.name, JSON.stringify(integrationView(d)), d.created_at],
          );
          break;
        }
        case DATASOURCE_CREATED: {
          const d = e.data as DatasourceCreated;
          await tx.query(
            `INSERT INTO access_datasources (datasource_id, integration_id, name, datatype, datasource, log_position, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (datasource_id) DO NOTHING`,
            [d.datasource_id, d.integration_id, d.name, d.datatype, JSON.stringify(datasourceView(d)), e.position, d.created_at],
          );
          break;
        }
      }
    }
  },
};
