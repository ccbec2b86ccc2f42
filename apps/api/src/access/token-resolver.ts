import { hashAccessToken, isWellFormedToken } from '#mds/access';
import type { AccessReadModel, RateCount, TokenRecord } from '#mds/projections';

export interface ResolvedToken {
  token: TokenRecord;
  /** Set when the rate limit is on and the token works: its requests in this minute, this one included. */
  rate?: RateCount;
}

/**
 * Token → its record in the access read model, and the request counted against the token's rate
 * limit, in one statement (authenticateToken). Nothing is cached in the process: a revocation holds
 * for the next request in every API process once the read model has it, which the revocation waits
 * for before it answers. The checksum refuses mistyped tokens before any look-up.
 */
export class TokenResolver {
  constructor(
    private readonly lookup: (hash: string, perMinute: number) => Promise<ResolvedToken | undefined>,
    readonly perMinute: number,
  ) {}

  static forReadModel(access: Pick<AccessReadModel, 'authenticate'>, perMinute: number): TokenResolver {
    return new TokenResolver((hash, limit) => access.authenticate(hash, limit), perMinute);
  }

  async resolve(token: string): Promise<ResolvedToken | undefined> {
    if (!isWellFormedToken(token)) return undefined;
    return this.lookup(hashAccessToken(token), this.perMinute);
  }
}
