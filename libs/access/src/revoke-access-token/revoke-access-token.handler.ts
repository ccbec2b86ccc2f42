import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { ACCESS_DEPS, nowIso, type AccessDeps } from '../access.deps';
import { RevokeAccessTokenCommand } from './revoke-access-token.command';
import { revokeToken } from './revoke-token';

/** Revokes a token for good; the caller waits for the access read model to pass `position` (then no process accepts it). */
@CommandHandler(RevokeAccessTokenCommand)
export class RevokeAccessTokenHandler implements ICommandHandler<RevokeAccessTokenCommand, { position: number; revoked: boolean }> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ACCESS_DEPS) private readonly deps: AccessDeps,
  ) {}

  execute(cmd: RevokeAccessTokenCommand) {
    return revokeToken(this.store, cmd.tokenId, cmd.by, 'revoked', nowIso(this.deps));
  }
}
