import { accessDeps, MemoryEventStore, refusal } from '#mds/testing/given';
import { userIdFor } from '../access.deps';
import { ACCESS_TOKEN_CREATED, tokenStream } from '../access.events';
import { CreateUserCommand } from '../create-user/create-user.command';
import { CreateUserHandler } from '../create-user/create-user.handler';
import { hashAccessToken } from '../credentials/access-token';
import { CreateUserTokenCommand } from './create-user-token.command';
import { CreateUserTokenHandler } from './create-user-token.handler';

describe('an operator creating a token for a user (mds tokens create)', () => {
  const deps = accessDeps();

  it('given ada exists, when a token limited to GET /metrics is created for her, then AccessTokenCreated holds its hash only', async () => {
    const store = new MemoryEventStore();
    await new CreateUserHandler(store, deps).execute(new CreateUserCommand('ada', 'a long password', ['admin']));
    store.givenSoFar();
    const minted = await new CreateUserTokenHandler(store, deps).execute(new CreateUserTokenCommand('ada', 'ops', [{ method: 'get', path: '/metrics' }], 'cli'));
    const ownerId = `users/${userIdFor('ada')}`;
    expect(minted.access_token).toMatchObject({ owner_id: ownerId, name: 'ops', created_by: 'cli', scopes: [{ method: 'GET', path: '/metrics' }], transferred_roles: [], expires_at: null, created_at: '2026-03-01T10:00:00.000Z' });
    const [event] = store.appended();
    expect(event).toMatchObject({ stream: tokenStream(minted.access_token.id), type: ACCESS_TOKEN_CREATED, data: { owner_id: ownerId, token_hash: hashAccessToken(minted.access_token.token) }, metadata: { actor: 'cli' } });
    expect(JSON.stringify(event)).not.toContain(minted.access_token.token);
    expect(minted.position).toBe(2);
  });

  it('given no user bob, when a token is created for him, then it is not found and nothing is appended', async () => {
    const store = new MemoryEventStore();
    expect(await refusal(() => new CreateUserTokenHandler(store, deps).execute(new CreateUserTokenCommand('bob', '', [])))).toMatchObject({ status: 404, message: 'no user "bob"' });
    expect(store.events).toEqual([]);
  });

  it('given ada exists, when a scope is not a path, then it is refused and nothing is appended', async () => {
    const store = new MemoryEventStore();
    await new CreateUserHandler(store, deps).execute(new CreateUserCommand('ada', 'a long password', ['admin']));
    store.givenSoFar();
    await expect(new CreateUserTokenHandler(store, deps).execute(new CreateUserTokenCommand('ada', '', [{ path: 'metrics' }]))).rejects.toThrow(/path must be a path starting with \//);
    expect(store.appended()).toEqual([]);
  });
});
