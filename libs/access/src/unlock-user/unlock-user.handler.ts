import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { notFound } from '#mds/platform';
import { ACCESS_DEPS, nowIso, userIdFor, type AccessDeps } from '../access.deps';
import { USER_UNLOCKED, userStream } from '../access.events';
import { loadUser } from '../access.streams';
import { UnlockUserCommand } from './unlock-user.command';

@CommandHandler(UnlockUserCommand)
export class UnlockUserHandler implements ICommandHandler<UnlockUserCommand, { failures: number }> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ACCESS_DEPS) private readonly deps: AccessDeps,
  ) {}

  async execute(cmd: UnlockUserCommand) {
    const userId = userIdFor(cmd.username);
    const { state, revision } = await loadUser(this.store, userId);
    if (!state.exists) throw notFound(`no user "${cmd.username}"`);
    await this.store.append(userStream(userId), [{ type: USER_UNLOCKED, data: { user_id: userId, by: cmd.actor, at: nowIso(this.deps) }, metadata: { actor: cmd.actor } }], {
      expectedRevision: revision,
    });
    return { failures: state.consecutiveFailures };
  }
}
