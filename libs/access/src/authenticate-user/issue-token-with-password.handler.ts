import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, WrongExpectedRevisionError, type EventStore } from '#mds/event-store';
import { AppError, invalidRequest, unauthorized } from '#mds/platform';
import { ACCESS_DEPS, nowIso, userIdFor, type AccessDeps } from '../access.deps';
import { userStream } from '../access.events';
import { mintToken, tokenName, type MintedToken } from '../create-access-token/mint-token';
import { decoyHash, verifyPassword } from '../credentials/password';
import { matchTotp } from '../credentials/totp';
import { parseScopes } from '../scopes';
import { tokenExpiry } from '../token.decider';
import { decideLogin } from '../user.decider';
import { loadUser } from '../access.streams';
import { IssueTokenWithPasswordCommand } from './issue-token-with-password.command';

const BAD_LOGIN = 'Invalid username or password';

/** The user flow of POST /api/access-tokens/: basic authentication (and TOTP) → a user-owned token. */
@CommandHandler(IssueTokenWithPasswordCommand)
export class IssueTokenWithPasswordHandler implements ICommandHandler<IssueTokenWithPasswordCommand, MintedToken> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ACCESS_DEPS) private readonly deps: AccessDeps,
  ) {}

  async execute(cmd: IssueTokenWithPasswordCommand): Promise<MintedToken> {
    let name: string;
    let scopes;
    try {
      name = tokenName(cmd.body.name);
      scopes = parseScopes(cmd.body.scopes);
    } catch (err) {
      throw invalidRequest((err as Error).message);
    }
    const expiresAt = tokenExpiry(cmd.body, this.deps.now ? this.deps.now() : new Date());
    const userId = userIdFor(cmd.username ?? '');
    // Two logins racing on one stream: the loser reloads and decides again (a TOTP code then counts as used).
    for (let attempt = 0; ; attempt++) {
      const { state, revision } = await loadUser(this.store, userId);
      if (!state.exists) {
        await verifyPassword(cmd.password ?? '', await decoyHash(this.deps.passwordHashCost));
        throw unauthorized(BAD_LOGIN);
      }
      const passwordOk = await verifyPassword(cmd.password ?? '', this.deps.secrets.open(state.passwordHashSealed!));
      const totpRequired = state.totpSecretSealed !== null;
      const now = this.deps.now ? this.deps.now() : new Date();
      const totpStep =
        totpRequired && cmd.totpCode ? matchTotp(this.deps.secrets.open(state.totpSecretSealed!), cmd.totpCode.trim(), now.getTime()) : undefined;
      const tokenId = randomUUID();
      const outcome = decideLogin(state, { passwordOk, totpRequired, totpCodeGiven: Boolean(cmd.totpCode), totpStep, tokenId, now: now.toISOString() }, this.deps.lockoutFailures);
      try {
        if (outcome.event) {
          await this.store.append(userStream(userId), [{ type: outcome.event.type, data: outcome.event.data, metadata: { actor: `users/${userId}`, request_id: cmd.requestId } }], {
            expectedRevision: revision,
          });
        }
      } catch (err) {
        if (err instanceof WrongExpectedRevisionError && attempt < 5) continue;
        throw err;
      }
      if (!outcome.ok) {
        switch (outcome.reason) {
          case 'locked':
            throw new AppError(403, 'account_locked', `This account is locked after ${this.deps.lockoutFailures} failed logins in a row; an administrator unlocks it with \`mds users unlock ${state.username}\``);
          case 'totp_missing':
            throw unauthorized('This account uses two-factor authentication: send the current six-digit code in the Service-TOTP-Code header');
          case 'totp_wrong':
            throw unauthorized('Wrong or expired code in Service-TOTP-Code');
          case 'totp_reused':
            throw unauthorized('This Service-TOTP-Code was already used; send the next code');
          default:
            throw unauthorized(BAD_LOGIN);
        }
      }
      const owner = `users/${userId}`;
      return mintToken(this.store, {
        ownerId: owner,
        name,
        createdBy: owner,
        scopes,
        transferredRoles: cmd.body.transfer_privileges === true ? state.roles : [],
        now: nowIso(this.deps),
        expiresAt,
        tokenId,
        requestId: cmd.requestId,
      });
    }
  }
}

