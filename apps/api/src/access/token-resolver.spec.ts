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

  describe('with the rate limit off and a cache time', () => {
    const known = generateAccessToken();
    const setup = (record: TokenRecord = token) => {
      let clock = 1_000_000;
      const lookup = jest.fn(async (hash: string) => (hash === hashAccessToken(known) ? { token: record } : undefined));
      const resolver = new TokenResolver(lookup, 0, 5_000, () => clock);
      return { lookup, resolver, advance: (ms: number) => (clock += ms) };
    };

    it('keeps a token found for the cache time, then looks it up again', async () => {
      const { lookup, resolver, advance } = setup();
      expect(await resolver.resolve(known)).toEqual({ token });
      advance(4_999);
      expect(await resolver.resolve(known)).toEqual({ token });
      expect(lookup).toHaveBeenCalledTimes(1);
      advance(1);
      await resolver.resolve(known);
      expect(lookup).toHaveBeenCalledTimes(2);
    });

    it('never keeps a token it did not find: one created a moment later works at once', async () => {
      const { lookup, resolver } = setup();
      const unknown = generateAccessToken();
      expect(await resolver.resolve(unknown)).toBeUndefined();
      expect(await resolver.resolve(unknown)).toBeUndefined();
      expect(lookup).toHaveBeenCalledTimes(2);
    });

    it('forgets every token on invalidate (a revocation announced), and does not keep a look-up begun before it', async () => {
      const { lookup, resolver } = setup();
      await resolver.resolve(known);
      resolver.invalidate();
      await resolver.resolve(known);
      expect(lookup).toHaveBeenCalledTimes(2);
      // A look-up in flight while the change is announced answers its request but is not kept.
      let release!: () => void;
      lookup.mockImplementationOnce(async () => {
        await new Promise<void>((r) => (release = r));
        return { token };
      });
      resolver.invalidate();
      const inFlight = resolver.resolve(known);
      await new Promise((r) => setImmediate(r));
      resolver.invalidate();
      release();
      expect(await inFlight).toEqual({ token });
      await resolver.resolve(known);
      expect(lookup).toHaveBeenCalledTimes(4);
    });

    it('refuses a kept token once its expiry passes, by the clock, without a look-up', async () => {
      const expiring = { ...token, expiresAt: new Date(1_000_000 + 2_000).toISOString() };
      const { lookup, resolver, advance } = setup(expiring);
      expect((await resolver.resolve(known))?.token.expired).toBe(false);
      advance(2_000);
      expect((await resolver.resolve(known))?.token.expired).toBe(true);
      expect(lookup).toHaveBeenCalledTimes(1);
    });
  });
});
