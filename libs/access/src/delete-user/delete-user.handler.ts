import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, WrongExpectedRevisionError, type EventStore } from '#mds/event-store';
import { ACCESS_DEPS, actorMetadata, nowIso, OWNER_TOKENS, userIdFor, type AccessDeps, type OwnerTokens } from '../access.deps';
import { userStream } from '../access.events';
import { loadSuperusers, loadUser } from '../access.streams';
import { revokeToken } from '../revoke-access-token/revoke-token';
import { decideDelete } from '../user.decider';
import { DeleteUserCommand } from './delete-user.command';

export interface DeletedUser {
  user_id: string;
  username: string;
  /** The tokens revoked with the user (reason `user_deleted`). */
  revoked: string[];
  /** What the access read model must pass for all of it: then no API process accepts the user's tokens. */
  position: number;
}

/**
 * Deletes a user (UserDeleted on their stream), then revokes each of their tokens. The access
 * projection refuses the tokens of a deleted user as it applies UserDeleted, so an interrupted
 * revocation leaves none working; the revocations record it on each token for auditors and lists.
 */
@CommandHandler(DeleteUserCommand)
export class DeleteUserHandler implements ICommandHandler<DeleteUserCommand, DeletedUser> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ACCESS_DEPS) private readonly deps: AccessDeps,
    @Inject(OWNER_TOKENS) private readonly ownerTokens: OwnerTokens,
  ) {}

  async execute({ username, by }: DeleteUserCommand): Promise<DeletedUser> {
    const userId = userIdFor(username ?? '');
    // Read before the deletion: once the read model has applied it, it lists no token of the user as active.
    const tokens = await this.ownerTokens(`users/${userId}`);
    let deleted: { username: string; position: number };
    for (let attempt = 0; ; attempt++) {
      const loaded = await loadUser(this.store, userId);
      const events = decideDelete(loaded.state, username, by, await loadSuperusers(this.store), nowIso(this.deps));
      try {
        const result = await this.store.append(userStream(userId), events.map((e) => ({ ...e, metadata: actorMetadata(by) })), { expectedRevision: loaded.revision });
        deleted = { username: loaded.state.username!, position: result.position };
        break;
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError) || attempt >= 5) throw err;
      }
    }
    const revoked: string[] = [];
    let position = deleted.position;
    for (const tokenId of tokens) {
      const result = await revokeToken(this.store, tokenId, by, 'user_deleted', nowIso(this.deps));
      if (result.revoked) revoked.push(tokenId);
      position = Math.max(position, result.position);
    }
    return { user_id: userId, username: deleted.username, revoked, position };
  }
}
