import { WrongExpectedRevisionError, type EventStore } from '#mds/event-store';
import { actorMetadata, type AccessActor } from '../access.deps';
import { tokenStream, type AccessTokenRevoked } from '../access.events';
import { loadToken } from '../access.streams';
import { decideRevoke } from '../token.decider';

/**
 * Revokes one token (appends AccessTokenRevoked to its stream, retried when another append won).
 * `position`: where the token's stream ends, revoked; a reader that has passed it refuses the token.
 */
export async function revokeToken(store: EventStore, tokenId: string, by: AccessActor, reason: AccessTokenRevoked['reason'], at: string): Promise<{ position: number; revoked: boolean }> {
  for (let attempt = 0; ; attempt++) {
    const { state, revision, position } = await loadToken(store, tokenId);
    const events = decideRevoke(state, tokenId, by, reason, at);
    if (events.length === 0) return { position, revoked: false };
    try {
      const result = await store.append(tokenStream(tokenId), events.map((e) => ({ ...e, metadata: actorMetadata(by) })), { expectedRevision: revision });
      return { position: result.position, revoked: true };
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError) || attempt >= 5) throw err;
    }
  }
}
