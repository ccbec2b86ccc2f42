import { USER_AUTHENTICATED, USER_CREATED, USER_LOGIN_FAILED, USER_UNLOCKED, type UserEvent } from './access.events';
import { decideLogin, evolveUser, initialUserState, isLocked, type UserState } from './user.decider';

const created: UserEvent = {
  type: USER_CREATED,
  data: { user_id: 'u1', username: 'ada', password_hash_sealed: 'v1.h', roles: ['admin'], totp_secret_sealed: 'sealed', created_at: '2026-01-01T00:00:00Z' },
};
const given = (...events: UserEvent[]): UserState => events.reduce(evolveUser, initialUserState);
const failed: UserEvent = { type: USER_LOGIN_FAILED, data: { user_id: 'u1', reason: 'password', at: 'now' } };
const check = { passwordOk: true, totpRequired: true, totpCodeGiven: true, totpStep: 10, tokenId: 't1', now: 'now' };

describe('user login decisions', () => {
  it('given a user with TOTP, when password and code are right, then it is authenticated with that step', () => {
    const outcome = decideLogin(given(created), check);
    expect(outcome).toEqual({ ok: true, event: { type: USER_AUTHENTICATED, data: { user_id: 'u1', totp_step: 10, token_id: 't1', at: 'now' } } });
  });

  it('given a code step already used, when it is sent again, then it is refused and counted', () => {
    const used: UserEvent = { type: USER_AUTHENTICATED, data: { user_id: 'u1', totp_step: 10, token_id: 't0', at: 'now' } };
    const outcome = decideLogin(given(created, used), check);
    expect(outcome).toMatchObject({ ok: false, reason: 'totp_reused', event: { type: USER_LOGIN_FAILED } });
  });

  it('given a wrong password, then the failure is recorded; a missing code is refused without counting', () => {
    expect(decideLogin(given(created), { ...check, passwordOk: false })).toMatchObject({ ok: false, reason: 'password', event: { type: USER_LOGIN_FAILED } });
    expect(decideLogin(given(created), { ...check, totpCodeGiven: false, totpStep: undefined })).toEqual({ ok: false, reason: 'totp_missing' });
  });

  it('given 100 failures in a row, then even the right password is refused until unlocked; a success resets the count', () => {
    const hundred = Array.from({ length: 100 }, () => failed);
    expect(isLocked(given(created, ...hundred.slice(1)))).toBe(false);
    const locked = given(created, ...hundred);
    expect(decideLogin(locked, check)).toEqual({ ok: false, reason: 'locked' });
    const unlocked = evolveUser(locked, { type: USER_UNLOCKED, data: { user_id: 'u1', by: 'cli', at: 'now' } });
    expect(decideLogin(unlocked, check).ok).toBe(true);
    const reset = evolveUser(given(created, failed, failed), { type: USER_AUTHENTICATED, data: { user_id: 'u1', totp_step: 3, token_id: 't', at: 'now' } });
    expect(reset.consecutiveFailures).toBe(0);
  });

  it('given no user, then it is unknown', () => {
    expect(decideLogin(initialUserState, check)).toEqual({ ok: false, reason: 'unknown_user' });
  });
});
