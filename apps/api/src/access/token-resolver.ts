import { hashAccessToken, isWellFormedToken } from '#mds/access';
import type { AccessReadModel, RateCount, TokenRecord } from '#mds/projections';

export interface ResolvedToken {
  token: TokenRecord;
  /** Set when the rate limit is on and the token works: its requests in this minute, this one included. */
  rate?: RateCount;
}

/** Most tokens kept at once; past it the cache starts again empty. */
const MAX_CACHED = 10_000;

/**
 * Token → its record in the access read model, with the request counted against the token's rate
 * limit in the same statement (authenticateToken). The checksum refuses mistyped tokens before any
 * look-up.
 *
 * With the rate limit off, a token found is kept for `cacheMs` (MDS_TOKEN_CACHE_MS), so a request
 * costs no statement: every change the access projection applies to tokens, users or integrations
 * (a revocation, a role, a deletion) is announced on ACCESS_CHANNEL (access.projection.ts) and empties the cache of every
 * process as it arrives, and a lost connection to the announcements empties it too. Expiry is checked
 * against the clock on every request. With the rate limit on, every request pays its statement (the
 * count is shared by every process) and nothing is kept.
 */
export class TokenResolver {
  private readonly cache = new Map<string, { token: TokenRecord; until: number }>();
  /** Bumped by every invalidation: a look-up begun before one does not fill the cache after it. */
  private epoch = 0;

  constructor(
    private readonly lookup: (hash: string, perMinute: number) => Promise<ResolvedToken | undefined>,
    readonly perMinute: number,
    private readonly cacheMs = 0,
    private readonly now: () => number = Date.now,
  ) {}

  static forReadModel(access: Pick<AccessReadModel, 'authenticate'>, perMinute: number, cacheMs = 0): TokenResolver {
    return new TokenResolver((hash, limit) => access.authenticate(hash, limit), perMinute, cacheMs);
  }

  /** Forgets every token kept: something about tokens, users or integrations changed (or may have). */
  invalidate(): void {
    this.epoch++;
    this.cache.clear();
  }

  async resolve(token: string): Promise<ResolvedToken | undefined> {
    if (!isWellFormedToken(token)) return undefined;
    const hash = hashAccessToken(token);
    if (this.perMinute > 0 || this.cacheMs <= 0) return this.lookup(hash, this.perMinute);
    const now = this.now();
    const kept = this.cache.get(hash);
    if (kept && kept.until > now) return { token: withExpiry(kept.token, now) };
    const epoch = this.epoch;
    const found = await this.lookup(hash, 0);
    if (found && epoch === this.epoch) {
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(hash, { token: found.token, until: now + this.cacheMs });
    }
    return found;
  }
}

/** The record with `expired` as of `now` (it was computed by the database when the record was read). */
function withExpiry(token: TokenRecord, now: number): TokenRecord {
  const expired = token.expired || (token.expiresAt !== null && Date.parse(token.expiresAt) <= now);
  return expired === token.expired ? token : { ...token, expired };
}
