import { conflict, forbidden, invalidRequest, notFound } from '#mds/platform';
import type { AccessActor } from './access.deps';
import {
  USER_AUTHENTICATED,
  USER_CREATED,
  USER_DELETED,
  USER_LOGIN_FAILED,
  USER_PASSWORD_CHANGED,
  USER_UNLOCKED,
  type UserEvent,
} from './access.events';
import type { Role } from './roles';

export const LOCKOUT_AFTER_FAILURES = 100;

export interface UserState {
  exists: boolean;
  userId?: string;
  username?: string;
  /** The scrypt hash, sealed (UserCreated keeps it so). */
  passwordHashSealed?: string;
  roles: Role[];
  totpSecretSealed: string | null;
  consecutiveFailures: number;
  lastTotpStep: number;
}

export const initialUserState: UserState = { exists: false, roles: [], totpSecretSealed: null, consecutiveFailures: 0, lastTotpStep: -1 };

export function evolveUser(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case USER_CREATED:
      return {
        ...state,
        exists: true,
        userId: event.data.user_id,
        username: event.data.username,
        passwordHashSealed: event.data.password_hash_sealed,
        roles: event.data.roles,
        totpSecretSealed: event.data.totp_secret_sealed,
      };
    case USER_LOGIN_FAILED:
      return { ...state, consecutiveFailures: state.consecutiveFailures + 1 };
    case USER_AUTHENTICATED:
      return { ...state, consecutiveFailures: 0, lastTotpStep: event.data.totp_step ?? state.lastTotpStep };
    case USER_UNLOCKED:
      return { ...state, consecutiveFailures: 0 };
    case USER_PASSWORD_CHANGED:
      return { ...state, passwordHashSealed: event.data.password_hash_sealed };
    case USER_DELETED:
      // Nothing of the user is left: the username may be created again, afresh.
      return initialUserState;
  }
}

/** A password: 8 to 1024 characters (scrypt takes any length; the cap bounds the work of a request). */
export function checkPassword(password: unknown): asserts password is string {
  if (typeof password !== 'string' || password.length < 8 || password.length > 1024) throw invalidRequest('password must be 8 to 1024 characters');
}

/**
 * Deleting a user: by an operator who manages access; not an unknown (or deleted) user; not the last
 * superuser (`superusers`: the ids of every user with that role now), so someone can still manage everything.
 */
export function decideDelete(state: UserState, username: string, by: AccessActor, superusers: ReadonlySet<string>, at: string): UserEvent[] {
  if (!by.manages) throw forbidden('Users are deleted by an admin');
  if (!state.exists || !state.userId) throw notFound(`no user "${username}"`);
  if (state.roles.includes('superuser') && ![...superusers].some((id) => id !== state.userId)) {
    throw conflict(`"${state.username}" is the last superuser: create another one first (mds users create <username> --role superuser)`);
  }
  return [{ type: USER_DELETED, data: { user_id: state.userId, username: state.username!, by: by.actor, at } }];
}

export function isLocked(state: UserState, limit = LOCKOUT_AFTER_FAILURES): boolean {
  return state.consecutiveFailures >= limit;
}

export type LoginOutcome =
  | { ok: true; event: UserEvent }
  | { ok: false; reason: 'unknown_user' | 'locked' | 'password' | 'totp_missing' | 'totp_wrong' | 'totp_reused'; event?: UserEvent };

/**
 * Decides a password login from the checks the handler made (password verified, TOTP code's time
 * step). A failure is recorded (it counts towards the lockout) except when the account is already
 * locked or unknown; a TOTP code whose step was already used is refused.
 */
export function decideLogin(
  state: UserState,
  check: { passwordOk: boolean; totpRequired: boolean; totpCodeGiven: boolean; totpStep: number | undefined; tokenId: string; now: string },
  lockoutLimit = LOCKOUT_AFTER_FAILURES,
): LoginOutcome {
  if (!state.exists || !state.userId) return { ok: false, reason: 'unknown_user' };
  if (isLocked(state, lockoutLimit)) return { ok: false, reason: 'locked' };
  const failed = (reason: 'password' | 'totp'): UserEvent => ({ type: USER_LOGIN_FAILED, data: { user_id: state.userId!, reason, at: check.now } });
  if (!check.passwordOk) return { ok: false, reason: 'password', event: failed('password') };
  if (check.totpRequired) {
    if (!check.totpCodeGiven) return { ok: false, reason: 'totp_missing' };
    if (check.totpStep === undefined) return { ok: false, reason: 'totp_wrong', event: failed('totp') };
    if (check.totpStep <= state.lastTotpStep) return { ok: false, reason: 'totp_reused', event: failed('totp') };
  }
  return {
    ok: true,
    event: { type: USER_AUTHENTICATED, data: { user_id: state.userId, totp_step: check.totpRequired ? check.totpStep! : null, token_id: check.tokenId, at: check.now } },
  };
}
