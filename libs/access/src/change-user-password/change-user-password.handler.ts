import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, WrongExpectedRevisionError, type EventStore } from '#mds/event-store';
import { notFound } from '#mds/platform';
import { ACCESS_DEPS, nowIso, userIdFor, type AccessDeps } from '../access.deps';
import { USER_PASSWORD_CHANGED, userStream, type UserPasswordChanged } from '../access.events';
import { loadUser } from '../access.streams';
import { hashPassword } from '../credentials/password';
import { checkPassword, isLocked } from '../user.decider';
import { ChangeUserPasswordCommand } from './change-user-password.command';

export interface ChangedPassword {
  user_id: string;
  username: string;
  /** Still locked after too many failed logins: a new password does not unlock (`mds users unlock` does). */
  locked: boolean;
  position: number;
}

/** Sets a user's password: logins check the new one from the next request on (they read the user's stream). */
@CommandHandler(ChangeUserPasswordCommand)
export class ChangeUserPasswordHandler implements ICommandHandler<ChangeUserPasswordCommand, ChangedPassword> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ACCESS_DEPS) private readonly deps: AccessDeps,
  ) {}

  async execute(cmd: ChangeUserPasswordCommand): Promise<ChangedPassword> {
    checkPassword(cmd.password);
    const userId = userIdFor(cmd.username ?? '');
    const sealed = this.deps.secrets.seal(await hashPassword(cmd.password, this.deps.passwordHashCost));
    // A login appending meanwhile (a failure, a success) moves the stream on: read it again and append after it.
    for (let attempt = 0; ; attempt++) {
      const { state, revision } = await loadUser(this.store, userId);
      if (!state.exists) throw notFound(`no user "${cmd.username}"`);
      const data: UserPasswordChanged = { user_id: userId, password_hash_sealed: sealed, by: cmd.actor, at: nowIso(this.deps) };
      try {
        const result = await this.store.append(userStream(userId), [{ type: USER_PASSWORD_CHANGED, data, metadata: { actor: cmd.actor } }], {
          expectedRevision: revision,
        });
        return { user_id: userId, username: state.username!, locked: isLocked(state, this.deps.lockoutFailures), position: result.position };
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError) || attempt >= 5) throw err;
      }
    }
  }
}
