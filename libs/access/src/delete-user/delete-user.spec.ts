import { accessDeps, MemoryEventStore, refusal } from '#mds/testing/given';
import { CLI_ACTOR, userIdFor, type OwnerTokens } from '../access.deps';
import { ACCESS_TOKEN_REVOKED, USER_DELETED, userStream } from '../access.events';
import { loadUser } from '../access.streams';
import { IssueTokenWithPasswordCommand } from '../authenticate-user/issue-token-with-password.command';
import { IssueTokenWithPasswordHandler } from '../authenticate-user/issue-token-with-password.handler';
import { mintToken } from '../create-access-token/mint-token';
import { CreateUserCommand } from '../create-user/create-user.command';
import { CreateUserHandler } from '../create-user/create-user.handler';
import { CreateUserTokenCommand } from '../create-user-token/create-user-token.command';
import { CreateUserTokenHandler } from '../create-user-token/create-user-token.handler';
import type { Role } from '../roles';
import { DeleteUserCommand } from './delete-user.command';
import { DeleteUserHandler } from './delete-user.handler';

describe('deleting a user', () => {
  const deps = accessDeps();
  const ada = userIdFor('ada');

  /** Users with these roles, and a read model that lists the tokens minted here as active. */
  async function given(users: Record<string, Role[]>) {
    const store = new MemoryEventStore();
    const active = new Map<string, string[]>();
    for (const [username, roles] of Object.entries(users)) await new CreateUserHandler(store, deps).execute(new CreateUserCommand(username, 'a long password', roles));
    const token = async (username: string) => {
      const owner = `users/${userIdFor(username)}`;
      const minted = await mintToken(store, { ownerId: owner, name: 't', createdBy: owner, scopes: [], transferredRoles: [], now: '2026-03-01T09:00:00.000Z' });
      active.set(owner, [...(active.get(owner) ?? []), minted.access_token.id]);
      return minted.access_token.id;
    };
    const ownerTokens: OwnerTokens = async (owner) => active.get(owner) ?? [];
    return { store, token, handler: new DeleteUserHandler(store, deps, ownerTokens) };
  }

  it('given ada with two tokens, when she is deleted, then UserDeleted, then each token revoked (reason user_deleted), and she can neither log in nor get a token', async () => {
    const { store, token, handler } = await given({ root: ['superuser'], ada: ['admin'] });
    const tokens = [await token('ada'), await token('ada')];
    await token('root');
    store.givenSoFar();
    const deleted = await handler.execute(new DeleteUserCommand('Ada', CLI_ACTOR));
    expect(deleted).toEqual({ user_id: ada, username: 'ada', revoked: tokens, position: expect.any(Number) });
    expect(store.appended()).toEqual([
      { stream: userStream(ada), type: USER_DELETED, data: { user_id: ada, username: 'ada', by: 'cli', at: '2026-03-01T10:00:00.000Z' }, metadata: expect.objectContaining({ actor: 'cli' }) },
      ...tokens.map((id) => ({
        stream: `token-${id}`,
        type: ACCESS_TOKEN_REVOKED,
        data: { token_id: id, owner_id: `users/${ada}`, revoked_by: 'cli', reason: 'user_deleted', at: '2026-03-01T10:00:00.000Z' },
        metadata: expect.objectContaining({ actor: 'cli' }),
      })),
    ]);
    expect(deleted.position).toBe(await store.headPosition());
    expect((await loadUser(store, ada)).state.exists).toBe(false);
    expect(await refusal(() => new IssueTokenWithPasswordHandler(store, deps).execute(new IssueTokenWithPasswordCommand('ada', 'a long password', undefined, {})))).toMatchObject({ status: 401 });
    expect(await refusal(() => new CreateUserTokenHandler(store, deps).execute(new CreateUserTokenCommand('ada', 'x', [], 'cli')))).toMatchObject({ status: 404 });
  });

  it('given root is the only superuser, when root is deleted, then it is a conflict and nothing is appended; with a second superuser, it is deleted', async () => {
    const { store, handler } = await given({ root: ['superuser', 'admin'], ada: ['admin'] });
    store.givenSoFar();
    expect(await refusal(() => handler.execute(new DeleteUserCommand('root', CLI_ACTOR)))).toEqual({
      status: 409,
      code: 'conflict',
      message: '"root" is the last superuser: create another one first (mds users create <username> --role superuser)',
    });
    expect(store.appended()).toEqual([]);

    await new CreateUserHandler(store, deps).execute(new CreateUserCommand('grace', 'a long password', ['superuser']));
    await handler.execute(new DeleteUserCommand('root', CLI_ACTOR));
    // Now grace is the last one; a deleted superuser does not count.
    expect(await refusal(() => handler.execute(new DeleteUserCommand('grace', CLI_ACTOR)))).toMatchObject({ status: 409 });
  });

  it('given ada was deleted, when she is deleted again, then she is not found; created again, she starts afresh', async () => {
    const { store, handler } = await given({ ada: ['staff'] });
    await handler.execute(new DeleteUserCommand('ada', CLI_ACTOR));
    expect(await refusal(() => handler.execute(new DeleteUserCommand('ada', CLI_ACTOR)))).toMatchObject({ status: 404, message: 'no user "ada"' });
    expect(await refusal(() => handler.execute(new DeleteUserCommand('nobody', CLI_ACTOR)))).toMatchObject({ status: 404, message: 'no user "nobody"' });
    const again = await new CreateUserHandler(store, deps).execute(new CreateUserCommand('ada', 'another password', ['auditor']));
    expect(again).toMatchObject({ user_id: ada, roles: ['auditor'] });
    expect((await loadUser(store, ada)).state).toMatchObject({ exists: true, roles: ['auditor'], consecutiveFailures: 0 });
  });

  it('given a caller who does not manage access, then it is forbidden', async () => {
    const { store, handler } = await given({ ada: ['staff'] });
    store.givenSoFar();
    expect(await refusal(() => handler.execute(new DeleteUserCommand('ada', { actor: `users/${ada}`, manages: false })))).toMatchObject({ status: 403 });
    expect(store.appended()).toEqual([]);
  });
});
