import { mintToken } from '../create-access-token/mint-token';
import { accessDeps, MemoryEventStore } from '#mds/testing/given';
import { CLI_ACTOR } from '../access.deps';
import { ACCESS_TOKEN_REVOKED, tokenStream } from '../access.events';
import { RevokeAccessTokenCommand } from './revoke-access-token.command';
import { RevokeAccessTokenHandler } from './revoke-access-token.handler';

describe('revoking an access token', () => {
  const deps = accessDeps();

  async function givenToken(store: MemoryEventStore) {
    const minted = await mintToken(store, { ownerId: 'users/ada', name: 'ops', createdBy: 'users/ada', scopes: [], transferredRoles: [], now: '2026-03-01T09:00:00.000Z' });
    store.givenSoFar();
    return minted.access_token.id;
  }

  it('given a live token, when it is revoked, then AccessTokenRevoked says by whom, and the position to wait for is its own', async () => {
    const store = new MemoryEventStore();
    const id = await givenToken(store);
    const result = await new RevokeAccessTokenHandler(store, deps).execute(new RevokeAccessTokenCommand(id, CLI_ACTOR));
    expect(result).toEqual({ position: 2, revoked: true });
    expect(store.appended()).toEqual([
      { stream: tokenStream(id), type: ACCESS_TOKEN_REVOKED, data: { token_id: id, owner_id: 'users/ada', revoked_by: 'cli', reason: 'revoked', at: '2026-03-01T10:00:00.000Z' }, metadata: expect.objectContaining({ actor: 'cli' }) },
    ]);
  });

  it('given a revoked token, when it is revoked again, then nothing changes and the answer says so', async () => {
    const store = new MemoryEventStore();
    const id = await givenToken(store);
    await new RevokeAccessTokenHandler(store, deps).execute(new RevokeAccessTokenCommand(id, CLI_ACTOR));
    store.givenSoFar();
    expect(await new RevokeAccessTokenHandler(store, deps).execute(new RevokeAccessTokenCommand(id, CLI_ACTOR))).toEqual({ position: 2, revoked: false });
    expect(store.appended()).toEqual([]);
  });
});
