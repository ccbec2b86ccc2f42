import { forbidden, invalidRequest, notFound } from '#mds/platform';
import type { AccessActor } from './access.deps';
import { ACCESS_TOKEN_CREATED, ACCESS_TOKEN_REVOKED, type AccessTokenRevoked, type AccessTokenUsed, type TokenEvent } from './access.events';

/**
 * The rules of one access token, pure: its lifetime (expiry on creation), who may revoke it, and
 * when a use is worth an event. The handlers load the token's stream and append what these decide.
 */

export interface TokenState {
  exists: boolean;
  tokenId?: string;
  ownerId?: string;
  revoked: boolean;
}

export const initialTokenState: TokenState = { exists: false, revoked: false };

export function evolveToken(state: TokenState, event: TokenEvent): TokenState {
  switch (event.type) {
    case ACCESS_TOKEN_CREATED:
      return { ...state, exists: true, tokenId: event.data.token_id, ownerId: event.data.owner_id };
    case ACCESS_TOKEN_REVOKED:
      return { ...state, revoked: true };
    default:
      return state;
  }
}

/**
 * Revoking: the owner revokes their own tokens, an admin anyone's. Unknown: 404; someone else's: 403.
 * A token revoked already is left as it is (nothing appended), so a retry answers the same.
 */
export function decideRevoke(state: TokenState, id: string, by: AccessActor, reason: AccessTokenRevoked['reason'], at: string): TokenEvent[] {
  if (!state.exists) throw notFound(`No access token ${id.slice(0, 64)}`);
  if (state.ownerId !== by.actor && !by.manages) throw forbidden('A token can be revoked by its owner or an admin');
  if (state.revoked) return [];
  return [{ type: ACCESS_TOKEN_REVOKED, data: { token_id: state.tokenId!, owner_id: state.ownerId!, revoked_by: by.actor, reason, at } }];
}

/** Uses are recorded at most this often per token and API process. */
export const TOKEN_USE_INTERVAL_MS = 60_000;

/**
 * A use is recorded when the token was never used (as the read model knows), and then once the last
 * use recorded, by any process, is an interval old; `recordedHere` (this process's last) keeps one
 * process from recording again while its previous event is on its way to the read model.
 */
export function decideTokenUse(
  input: { tokenId: string; lastUsedAt: string | null; recordedHere: number | undefined; now: number },
  intervalMs = TOKEN_USE_INTERVAL_MS,
): AccessTokenUsed | undefined {
  const { lastUsedAt, recordedHere, now } = input;
  if (recordedHere !== undefined && now - recordedHere < intervalMs) return undefined;
  if (lastUsedAt !== null && now - Date.parse(lastUsedAt) < intervalMs) return undefined;
  return { token_id: input.tokenId, at: new Date(now).toISOString() };
}

/** A token lives at most this long: 10 years. */
export const MAX_TOKEN_LIFETIME_S = 10 * 365 * 24 * 3600;

/**
 * When a new token expires: `expires_at` (ISO 8601, in the future) or `expires_in` (seconds from
 * now, 1 to 10 years), not both; neither: never. A token that expires itself (`ceiling`) creates only
 * tokens that expire no later: by default when it does.
 */
export function tokenExpiry(input: { expires_at?: unknown; expires_in?: unknown }, now: Date, ceiling: string | null = null): string | null {
  const { expires_at: at, expires_in: seconds } = input;
  const given = (v: unknown) => v !== undefined && v !== null;
  if (given(at) && given(seconds)) throw invalidRequest('Send expires_at or expires_in, not both');
  let expires: Date | null = null;
  if (given(seconds)) {
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > MAX_TOKEN_LIFETIME_S) {
      throw invalidRequest(`expires_in must be a whole number of seconds from 1 to ${MAX_TOKEN_LIFETIME_S} (10 years)`);
    }
    expires = new Date(now.getTime() + seconds * 1000);
  } else if (given(at)) {
    const ms = typeof at === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(at) ? Date.parse(at) : NaN;
    if (Number.isNaN(ms)) throw invalidRequest('expires_at must be an ISO 8601 time with a zone, e.g. 2030-01-31T12:00:00Z');
    if (ms <= now.getTime()) throw invalidRequest('expires_at must be in the future');
    if (ms > now.getTime() + MAX_TOKEN_LIFETIME_S * 1000) throw invalidRequest('expires_at must be at most 10 years ahead');
    expires = new Date(ms);
  }
  if (ceiling !== null) {
    if (expires === null) return ceiling;
    if (expires.getTime() > Date.parse(ceiling)) throw forbidden(`This token expires at ${ceiling}; it cannot create a token that expires later`);
  }
  return expires?.toISOString() ?? null;
}
