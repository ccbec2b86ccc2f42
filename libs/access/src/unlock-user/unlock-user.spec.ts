import { accessDeps, MemoryEventStore, refusal } from '#mds/testing/given';
import { userIdFor } from '../access.deps';
import { USER_LOGIN_FAILED, USER_UNLOCKED, userStream } from '../access.events';
import { CreateUserCommand } from '../create-user/create-user.command';
import { CreateUserHandler } from '../create-user/create-user.handler';
import { UnlockUserCommand } from './unlock-user.command';
import { UnlockUserHandler } from './unlock-user.handler';

describe('unlocking a user', () => {
  const deps = accessDeps();

  it('given ada failed to log in twice, when she is unlocked, then UserUnlocked forgets both failures', async () => {
    const store = new MemoryEventStore();
    await new CreateUserHandler(store, deps).execute(new CreateUserCommand('ada', 'a long password', ['staff']));
    const userId = userIdFor('ada');
    const failed = { type: USER_LOGIN_FAILED, data: { user_id: userId, reason: 'password', at: '2026-03-01T09:00:00.000Z' } };
    await store.given(userStream(userId), failed, failed);
    expect(await new UnlockUserHandler(store, deps).execute(new UnlockUserCommand('ada', 'cli'))).toEqual({ failures: 2 });
    expect(store.appended()).toEqual([{ stream: userStream(userId), type: USER_UNLOCKED, data: { user_id: userId, by: 'cli', at: '2026-03-01T10:00:00.000Z' }, metadata: expect.objectContaining({ actor: 'cli' }) }]);
    // At the revision it read: a login failing meanwhile makes the unlock try again, not lose it.
    expect(store.appends[0].options).toEqual({ expectedRevision: 2 });
  });

  it('given no user nobody, when nobody is unlocked, then it is not found', async () => {
    const store = new MemoryEventStore();
    expect(await refusal(() => new UnlockUserHandler(store, deps).execute(new UnlockUserCommand('nobody', 'cli')))).toMatchObject({ status: 404, message: 'no user "nobody"' });
    expect(store.events).toEqual([]);
  });
});
