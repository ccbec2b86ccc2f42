import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, WrongExpectedRevisionError, type EventStore } from '#mds/event-store';
import { ACCESS_DEPS, actorMetadata, nowIso, OWNER_TOKENS, type AccessDeps, type OwnerTokens } from '../access.deps';
import { integrationStream } from '../access.events';
import { loadIntegration } from '../access.streams';
import { decideEnabled } from '../integration.decider';
import { revokeToken } from '../revoke-access-token/revoke-token';
import { ChangeIntegrationCommand } from './change-integration.command';

/**
 * Enables or disables an integration. Disabling revokes every token of the integration (an
 * AccessTokenRevoked each, reason `integration_disabled`); it does so again when the integration is
 * disabled already, so a retry finishes a revocation that was interrupted. Until then the API refuses
 * a disabled integration's tokens anyway. `position`: what the access read model must pass for all of it.
 */
@CommandHandler(ChangeIntegrationCommand)
export class ChangeIntegrationHandler implements ICommandHandler<ChangeIntegrationCommand, { position: number; revoked: string[] }> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ACCESS_DEPS) private readonly deps: AccessDeps,
    @Inject(OWNER_TOKENS) private readonly ownerTokens: OwnerTokens,
  ) {}

  async execute({ integrationId, enabled, by }: ChangeIntegrationCommand) {
    let position = 0;
    for (let attempt = 0; ; attempt++) {
      const loaded = await loadIntegration(this.store, integrationId);
      const events = decideEnabled(loaded.state, integrationId, enabled, by.actor, nowIso(this.deps));
      position = loaded.position;
      if (events.length === 0) break;
      try {
        position = (await this.store.append(integrationStream(integrationId), events.map((e) => ({ ...e, metadata: actorMetadata(by) })), { expectedRevision: loaded.revision })).position;
        break;
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError) || attempt >= 5) throw err;
      }
    }
    const revoked: string[] = [];
    if (!enabled) {
      for (const tokenId of await this.ownerTokens(`integrations/${integrationId}`)) {
        const result = await revokeToken(this.store, tokenId, by, 'integration_disabled', nowIso(this.deps));
        if (result.revoked) revoked.push(tokenId);
        position = Math.max(position, result.position);
      }
    }
    return { position, revoked };
  }
}
