import { generateAccessToken, hashAccessToken } from '#mds/access';
import type { TokenRecord } from '#mds/projections';
import { TokenResolver } from './token-resolver';

describe('token resolver', () => {
  const token: TokenRecord = {
    tokenId: 't1',
    ownerId: 'users/u1',
    scopes: [],
    transferredRoles: [],
    ownerRoles: ['admin'],
    ownerExists: true,
    ownerEnabled: true,
    revoked: false,
    expiresAt: null,
    expired: false,
    lastUsedAt: null,
  };

  it('refuses a malformed or mistyped token without a look-up', async () => {
    const lookup = jest.fn(async () => ({ token }));
    const resolver = new TokenResolver(lookup, 0);
    const value = generateAccessToken();
    expect(await resolver.resolve('not-a-token')).toBeUndefined();
    expect(await resolver.resolve(value.slice(0, -1) + (value.endsWith('Z') ? 'Y' : 'Z'))).toBeUndefined();
    expect(lookup).not.toHaveBeenCalled();
  });

  it('looks a token up by its hash on every request, with the rate limit to count against, and caches nothing', async () => {
    const known = generateAccessToken();
    const lookup = jest.fn(async (hash: string) => (hash === hashAccessToken(known) ? { token, rate: { count: 1, resetSeconds: 30 } } : undefined));
    const resolver = new TokenResolver(lookup, 1200);
    expect(await resolver.resolve(known)).toEqual({ token, rate: { count: 1, resetSeconds: 30 } });
    expect(await resolver.resolve(known)).toEqual({ token, rate: { count: 1, resetSeconds: 30 } });
    expect(await resolver.resolve(generateAccessToken())).toBeUndefined();
    expect(lookup.mock.calls).toEqual([[hashAccessToken(known), 1200], [hashAccessToken(known), 1200], [expect.any(String), 1200]]);
  });
});
