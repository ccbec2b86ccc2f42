import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { notFound } from '#mds/platform';
import { ACCESS_DEPS, nowIso, userIdFor, type AccessDeps } from '../access.deps';
import { loadUser } from '../access.streams';
import { mintToken, type MintedToken } from '../create-access-token/mint-token';
import { parseScopes } from '../scopes';
import { CreateUserTokenCommand } from './create-user-token.command';

@CommandHandler(CreateUserTokenCommand)
export class CreateUserTokenHandler implements ICommandHandler<CreateUserTokenCommand, MintedToken> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ACCESS_DEPS) private readonly deps: AccessDeps,
  ) {}

  async execute(cmd: CreateUserTokenCommand): Promise<MintedToken> {
    const userId = userIdFor(cmd.username);
    const { state } = await loadUser(this.store, userId);
    if (!state.exists) throw notFound(`no user "${cmd.username}"`);
    const scopes = parseScopes(cmd.scopes);
    return mintToken(this.store, { ownerId: `users/${userId}`, name: cmd.name, createdBy: cmd.actor, scopes, transferredRoles: [], now: nowIso(this.deps) });
  }
}
