import { accessDeps, MemoryEventStore, refusal } from '#mds/testing/given';
import { userIdFor } from '../access.deps';
import { USER_CREATED, userStream } from '../access.events';
import { verifyPassword } from '../credentials/password';
import { CreateUserCommand } from './create-user.command';
import { CreateUserHandler } from './create-user.handler';

describe('creating a user', () => {
  const deps = accessDeps();

  it('given no user ada, when she is created, then UserCreated is in her stream with the password sealed and hashed', async () => {
    const store = new MemoryEventStore();
    const created = await new CreateUserHandler(store, deps).execute(new CreateUserCommand('ada', 'a long password', ['admin', 'admin', 'auditor'], undefined, 'cli'));
    const userId = userIdFor('ada');
    expect(created).toEqual({ user_id: userId, username: 'ada', roles: ['admin', 'auditor'], totp: false, position: 1 });
    const [event] = store.appended();
    expect(event).toMatchObject({ stream: userStream(userId), type: USER_CREATED, data: { user_id: userId, username: 'ada', roles: ['admin', 'auditor'], totp_secret_sealed: null, created_at: '2026-03-01T10:00:00.000Z' }, metadata: { actor: 'cli', schema: 2 } });
    const sealed = (event.data as { password_hash_sealed: string }).password_hash_sealed;
    expect(sealed).not.toContain('scrypt');
    expect(await verifyPassword('a long password', deps.secrets.open(sealed))).toBe(true);
  });

  it('given ada exists, when ADA is created, then it is a conflict (usernames ignore case) and nothing is appended', async () => {
    const store = new MemoryEventStore();
    await new CreateUserHandler(store, deps).execute(new CreateUserCommand('ada', 'a long password', ['staff']));
    store.givenSoFar();
    expect(await refusal(() => new CreateUserHandler(store, deps).execute(new CreateUserCommand('ADA', 'another password', ['staff'])))).toEqual({ status: 409, code: 'conflict', message: 'user "ADA" already exists' });
    expect(store.appended()).toEqual([]);
  });

  it.each([
    ['a bad username', new CreateUserCommand('a b', 'a long password', ['staff']), /username/],
    ['a short password', new CreateUserCommand('bob', 'short', ['staff']), /password must be 8/],
    ['no role', new CreateUserCommand('bob', 'a long password', []), /roles/],
    ['an unknown role', new CreateUserCommand('bob', 'a long password', ['king' as never]), /roles/],
    ['a TOTP secret that is not base32', new CreateUserCommand('bob', 'a long password', ['staff'], 'not base32!'), /TOTP/],
  ])('when given %s, then it is refused and nothing is appended', async (_, command, message) => {
    const store = new MemoryEventStore();
    const refused = await refusal(() => new CreateUserHandler(store, deps).execute(command));
    expect(refused).toMatchObject({ status: 400, message: expect.stringMatching(message) });
    expect(store.events).toEqual([]);
  });
});
