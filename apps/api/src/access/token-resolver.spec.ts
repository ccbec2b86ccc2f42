import { generateAccessToken, hashAccessToken } from '#mds/access';
import type { TokenRecord } from '#mds/projections';
import { TokenResolver } from './token-resolver';

describe('token resolver', () => {
  const record: TokenRecord = { tokenId: 't1', ownerId: 'users/u1', scopes: [], transferredRoles: [], ownerRoles: ['admin'], ownerExists: true };

  it('refuses a malformed or mistyped token without a look-up', async () => {
    const lookup = jest.fn(async () => record);
    const resolver = new TokenResolver(lookup);
    const token = generateAccessToken();
    expect(await resolver.resolve('not-a-token')).toBeUndefined();
    expect(await resolver.resolve(token.slice(0, -1) + (token.endsWith('Z') ? 'Y' : 'Z'))).toBeUndefined();
    expect(lookup).not.toHaveBeenCalled();
  });

  it('looks a token up by its hash and caches known tokens, unknown ones only briefly', async () => {
    const known = generateAccessToken();
    const unknown = generateAccessToken();
    const lookup = jest.fn(async (hash: string) => (hash === hashAccessToken(known) ? record : undefined));
    const resolver = new TokenResolver(lookup, 5000);
    expect(await resolver.resolve(known)).toBe(record);
    expect(await resolver.resolve(known)).toBe(record);
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(lookup).toHaveBeenCalledWith(hashAccessToken(known));
    expect(await resolver.resolve(unknown)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 300));
    expect(await resolver.resolve(unknown)).toBeUndefined();
    expect(lookup).toHaveBeenCalledTimes(3);
  });
});
