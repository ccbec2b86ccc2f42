import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { conflict, forbidden, invalidRequest, unprocessable } from '#mds/platform';
import { ACCESS_DEPS, type AccessDeps } from '../access.deps';
import { loadIntegration } from '../access.streams';
import { permissionsOf } from '../roles';
import { parseScopes, scopeAllows, type Scope } from '../scopes';
import { tokenExpiry } from '../token.decider';
import { CreateAccessTokenCommand } from './create-access-token.command';
import { mintToken, tokenName, type MintedToken } from './mint-token';

/** POST /api/access-tokens/ by an authenticated caller: its own token, or (admins) an integration's. */
@CommandHandler(CreateAccessTokenCommand)
export class CreateAccessTokenHandler implements ICommandHandler<CreateAccessTokenCommand, MintedToken> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ACCESS_DEPS) private readonly deps: AccessDeps,
  ) {}

  async execute(cmd: CreateAccessTokenCommand): Promise<MintedToken> {
    const { principal, body } = cmd;
    if (principal.kind !== 'user') throw forbidden('Integration tokens cannot create access tokens');
    let name: string;
    let scopes: Scope[];
    try {
      name = tokenName(body.name);
      scopes = parseScopes(body.scopes);
    } catch (err) {
      throw invalidRequest((err as Error).message);
    }
    if (body.transfer_privileges !== undefined && typeof body.transfer_privileges !== 'boolean') throw invalidRequest('transfer_privileges must be true or false');
    const ownerId = body.owner_id === undefined || body.owner_id === null ? principal.ownerId : body.owner_id;
    if (typeof ownerId !== 'string') throw invalidRequest('owner_id must be "users/<id>" or "integrations/<id>"');
    const integration = /^integrations\/([A-Za-z0-9-]{1,64})$/.exec(ownerId);
    if (integration) {
      if (!permissionsOf(principal.roles, false).has('access:manage')) throw forbidden('Creating tokens for integrations needs the admin role');
      const { state } = await loadIntegration(this.store, integration[1]);
      if (!state.exists) throw unprocessable(`owner_id ${ownerId} does not exist`);
      if (!state.enabled) throw conflict(`Integration ${integration[1]} is disabled; enable it first (PATCH /api/integrations/${integration[1]}/ {"enabled": true})`);
    } else if (ownerId !== principal.ownerId) {
      throw forbidden('A user can create tokens for itself or, as admin, for integrations');
    }
    // A scoped caller cannot mint a token that reaches further than its own.
    if (principal.scopes.length > 0) {
      if (scopes.length === 0 || !scopes.every((s) => principal.scopes.some((p) => (!p.method || p.method === s.method) && scopeAllows([p], s.method ?? p.method ?? 'GET', s.path)))) {
        throw forbidden('A scoped token can only create tokens within its own scopes');
      }
    }
    const now = this.deps.now ? this.deps.now() : new Date();
    const expiresAt = tokenExpiry(body, now, principal.expiresAt ?? null);
    return mintToken(this.store, {
      ownerId,
      name,
      createdBy: principal.ownerId,
      scopes,
      transferredRoles: body.transfer_privileges === true ? principal.roles : [],
      now: now.toISOString(),
      expiresAt,
      requestId: cmd.requestId,
      byToken: principal.tokenId,
    });
  }
}
