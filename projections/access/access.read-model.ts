import type { ReadDeps } from '../runtime/read-side';
import {
  activeTokenIds,
  authenticateToken,
  countUsers,
  findAccessToken,
  findDatasource,
  findIntegration,
  findTokenByHash,
  listAccessTokens,
  listDatasources,
  listIntegrations,
  listUsers,
} from './access.queries';

export const ACCESS_READ_MODEL = Symbol('AccessReadModel');

/** Users, access tokens, integrations and datasources as the access projection keeps them. */
export class AccessReadModel {
  constructor(private readonly read: ReadDeps) {}

  /** The token a request presents, with its use counted against the rate limit (one statement). */
  authenticate(tokenHash: string, perMinute: number) {
    return authenticateToken(this.read.pool, tokenHash, perMinute);
  }

  tokenByHash(tokenHash: string) {
    return findTokenByHash(this.read.pool, tokenHash);
  }

  listTokens(options: Parameters<typeof listAccessTokens>[1]) {
    return listAccessTokens(this.read.pool, options);
  }

  token(tokenId: string) {
    return findAccessToken(this.read.pool, tokenId);
  }

  activeTokenIds(ownerId: string) {
    return activeTokenIds(this.read, ownerId);
  }

  countUsers() {
    return countUsers(this.read.pool);
  }

  listUsers() {
    return listUsers(this.read.pool);
  }

  listDatasources(options: Parameters<typeof listDatasources>[1] = {}) {
    return listDatasources(this.read.pool, options);
  }

  datasource(datasourceId: string) {
    return findDatasource(this.read.pool, datasourceId);
  }

  listIntegrations() {
    return listIntegrations(this.read.pool);
  }

  integration(integrationId: string) {
    return findIntegration(this.read.pool, integrationId);
  }
}
