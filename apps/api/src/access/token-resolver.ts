import type { Pool } from '#mds/platform';
import { hashAccessToken, isWellFormedToken } from '#mds/access';
import { findTokenByHash, type TokenRecord } from '#mds/projections';

/**
 * Token hash → token record, through the access read model, with a short in-process cache so a busy
 * client does not cost a query per request. The checksum refuses mistyped tokens before any look-up.
 */
export class TokenResolver {
  private readonly cache = new Map<string, { record: TokenRecord | undefined; until: number }>();

  constructor(
    private readonly lookup: (hash: string) => Promise<TokenRecord | undefined>,
    private readonly ttlMs = 5000,
    private readonly maxEntries = 10_000,
  ) {}

  static forPool(pool: Pool): TokenResolver {
    return new TokenResolver((hash) => findTokenByHash(pool, hash));
  }

  async resolve(token: string): Promise<TokenRecord | undefined> {
    if (!isWellFormedToken(token)) return undefined;
    const hash = hashAccessToken(token);
    const now = Date.now();
    const hit = this.cache.get(hash);
    if (hit && hit.until > now) return hit.record;
    const record = await this.lookup(hash);
    // Unknown tokens are cached briefly only: a token just created must start working at once.
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(hash, { record, until: now + (record ? this.ttlMs : 250) });
    return record;
  }
}
