import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { ACCESS_TOKEN_USED, tokenUseStream } from '../access.events';
import { decideTokenUse, TOKEN_USE_INTERVAL_MS } from '../token.decider';
import { RecordTokenUseCommand } from './record-token-use.command';

/**
 * Records a token's use: its first, then at most one a minute per token and process (a use an event
 * would flood the log: a busy integration makes thousands of requests a minute). One handler per
 * process remembers what it recorded. Returns whether an event was appended.
 */
@CommandHandler(RecordTokenUseCommand)
export class RecordTokenUseHandler implements ICommandHandler<RecordTokenUseCommand, boolean> {
  private readonly recorded = new Map<string, number>();

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(cmd: RecordTokenUseCommand): Promise<boolean> {
    const now = Date.now();
    const used = decideTokenUse({ tokenId: cmd.tokenId, lastUsedAt: cmd.lastUsedAt, recordedHere: this.recorded.get(cmd.tokenId), now });
    if (!used) return false;
    // Noted before the append, so the requests that follow meanwhile do not record it again.
    if (this.recorded.size >= 100_000) this.forgetOld(now);
    this.recorded.set(cmd.tokenId, now);
    try {
      await this.store.append(tokenUseStream(cmd.tokenId), [{ type: ACCESS_TOKEN_USED, data: used, metadata: { actor: cmd.ownerId, token_id: cmd.tokenId, request_id: cmd.requestId } }], {
        expectedRevision: 'any',
      });
    } catch (err) {
      this.recorded.delete(cmd.tokenId);
      throw err;
    }
    return true;
  }

  private forgetOld(now: number): void {
    for (const [id, at] of this.recorded) if (now - at >= TOKEN_USE_INTERVAL_MS) this.recorded.delete(id);
  }
}
