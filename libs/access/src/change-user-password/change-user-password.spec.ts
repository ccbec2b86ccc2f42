import { accessDeps, MemoryEventStore, refusal } from '#mds/testing/given';
import { userIdFor } from '../access.deps';
import { USER_LOGIN_FAILED, USER_PASSWORD_CHANGED, userStream } from '../access.events';
import { IssueTokenWithPasswordCommand } from '../authenticate-user/issue-token-with-password.command';
import { IssueTokenWithPasswordHandler } from '../authenticate-user/issue-token-with-password.handler';
import { CreateUserCommand } from '../create-user/create-user.command';
import { CreateUserHandler } from '../create-user/create-user.handler';
import { verifyPassword } from '../credentials/password';
import { ChangeUserPasswordCommand } from './change-user-password.command';
import { ChangeUserPasswordHandler } from './change-user-password.handler';

describe("changing a user's password", () => {
  const deps = accessDeps();
  const userId = userIdFor('ada');

  async function givenAda() {
    const store = new MemoryEventStore();
    await new CreateUserHandler(store, deps).execute(new CreateUserCommand('ada', 'the old password', ['staff']));
    return store.givenSoFar();
  }
  const login = (store: MemoryEventStore, password: string) => new IssueTokenWithPasswordHandler(store, deps).execute(new IssueTokenWithPasswordCommand('ada', password, undefined, {}));

  it('given ada, when her password is set, then UserPasswordChanged holds the new hash sealed, and logins take the new password, not the old', async () => {
    const store = await givenAda();
    const changed = await new ChangeUserPasswordHandler(store, deps).execute(new ChangeUserPasswordCommand('ADA', 'the new password', 'cli'));
    expect(changed).toEqual({ user_id: userId, username: 'ada', locked: false, position: 2 });
    const [event] = store.appended();
    expect(event).toMatchObject({ stream: userStream(userId), type: USER_PASSWORD_CHANGED, data: { user_id: userId, by: 'cli', at: '2026-03-01T10:00:00.000Z' }, metadata: { actor: 'cli' } });
    const sealed = (event.data as { password_hash_sealed: string }).password_hash_sealed;
    expect(Object.keys(event.data as object).sort()).toEqual(['at', 'by', 'password_hash_sealed', 'user_id']);
    expect(sealed).not.toMatch(/scrypt|the new password/);
    expect(await verifyPassword('the new password', deps.secrets.open(sealed))).toBe(true);

    expect(await refusal(() => login(store, 'the old password'))).toMatchObject({ status: 401 });
    expect((await login(store, 'the new password')).access_token.owner_id).toBe(`users/${userId}`);
  });

  it('given ada is locked, when her password is set, then she stays locked (unlocking is its own command)', async () => {
    const store = await givenAda();
    const failed = { type: USER_LOGIN_FAILED, data: { user_id: userId, reason: 'password', at: '2026-03-01T09:00:00.000Z' } };
    await store.given(userStream(userId), failed, failed, failed);
    expect(await new ChangeUserPasswordHandler(store, deps).execute(new ChangeUserPasswordCommand('ada', 'the new password', 'cli'))).toMatchObject({ locked: true });
    // At the revision it read: a login failing meanwhile makes it read again, not lose either event.
    expect(store.appends[0].options).toEqual({ expectedRevision: 3 });
  });

  it.each([
    ['no user nobody', 'nobody', 'a long password', { status: 404, message: 'no user "nobody"' }],
    ['a password of 7 characters', 'ada', 'short12', { status: 400, message: 'password must be 8 to 1024 characters' }],
    ['a password of 1025 characters', 'ada', 'x'.repeat(1025), { status: 400, message: 'password must be 8 to 1024 characters' }],
  ])('when given %s, then it is refused and nothing is appended', async (_, username, password, expected) => {
    const store = await givenAda();
    expect(await refusal(() => new ChangeUserPasswordHandler(store, deps).execute(new ChangeUserPasswordCommand(username, password, 'cli')))).toMatchObject(expected);
    expect(store.appended()).toEqual([]);
  });
});
