import { accessDeps, MemoryEventStore, refusal } from '#mds/testing/given';
import { userIdFor } from '../access.deps';
import { ACCESS_TOKEN_CREATED, USER_AUTHENTICATED, USER_LOGIN_FAILED, userStream } from '../access.events';
import { CreateUserCommand } from '../create-user/create-user.command';
import { CreateUserHandler } from '../create-user/create-user.handler';
import { totpCode, totpStep } from '../credentials/totp';
import { IssueTokenWithPasswordCommand } from './issue-token-with-password.command';
import { IssueTokenWithPasswordHandler } from './issue-token-with-password.handler';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

describe('a user logging in with a password for a token', () => {
  const deps = accessDeps();
  const userId = userIdFor('ada');

  async function given(totp?: string) {
    const store = new MemoryEventStore();
    await new CreateUserHandler(store, deps).execute(new CreateUserCommand('ada', 'a long password', ['admin'], totp));
    store.givenSoFar();
    return { store, handler: new IssueTokenWithPasswordHandler(store, deps) };
  }

  it('given ada, when she logs in with her password, then UserAuthenticated names the token, and the token is hers', async () => {
    const { store, handler } = await given();
    const minted = await handler.execute(new IssueTokenWithPasswordCommand('ada', 'a long password', undefined, { name: 'laptop', transfer_privileges: true }, 'req-1'));
    expect(store.appended().map((e) => [e.stream, e.type])).toEqual([
      [userStream(userId), USER_AUTHENTICATED],
      [`token-${minted.access_token.id}`, ACCESS_TOKEN_CREATED],
    ]);
    expect(store.appended()[0].data).toEqual({ user_id: userId, totp_step: null, token_id: minted.access_token.id, at: '2026-03-01T10:00:00.000Z' });
    expect(minted.access_token).toMatchObject({ owner_id: `users/${userId}`, created_by: `users/${userId}`, name: 'laptop', transferred_roles: ['admin'] });
  });

  it('given ada, when the password is wrong, then UserLoginFailed and 401; after the lockout limit even the right one is refused as locked', async () => {
    const { store, handler } = await given();
    for (let i = 0; i < 3; i++) expect((await refusal(() => handler.execute(new IssueTokenWithPasswordCommand('ada', 'wrong password', undefined, {})))).status).toBe(401);
    expect(store.appended().map((e) => e.type)).toEqual([USER_LOGIN_FAILED, USER_LOGIN_FAILED, USER_LOGIN_FAILED]);
    expect(await refusal(() => handler.execute(new IssueTokenWithPasswordCommand('ada', 'a long password', undefined, {})))).toMatchObject({ status: 403, code: 'account_locked' });
  });

  it('given no user, when someone logs in, then 401 and nothing is appended', async () => {
    const { store, handler } = await given();
    expect((await refusal(() => handler.execute(new IssueTokenWithPasswordCommand('bob', 'a long password', undefined, {})))).status).toBe(401);
    expect(store.appended()).toEqual([]);
  });

  it('given ada with two-factor authentication, then the code is required, checked, and not accepted twice', async () => {
    const { store, handler } = await given(SECRET);
    expect(await refusal(() => handler.execute(new IssueTokenWithPasswordCommand('ada', 'a long password', undefined, {})))).toMatchObject({ status: 401, message: expect.stringMatching(/Service-TOTP-Code/) });
    const code = totpCode(SECRET, totpStep(deps.now!().getTime()));
    await handler.execute(new IssueTokenWithPasswordCommand('ada', 'a long password', code, {}));
    expect(await refusal(() => handler.execute(new IssueTokenWithPasswordCommand('ada', 'a long password', code, {})))).toMatchObject({ status: 401, message: expect.stringMatching(/already used/) });
    expect(store.appended().map((e) => e.type)).toEqual([USER_AUTHENTICATED, ACCESS_TOKEN_CREATED, USER_LOGIN_FAILED]);
  });
});
