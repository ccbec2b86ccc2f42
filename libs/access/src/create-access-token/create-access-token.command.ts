import type { Principal } from '../access.deps';

export class CreateAccessTokenCommand {
  constructor(
    readonly principal: Principal,
    readonly body: { name?: unknown; owner_id?: unknown; scopes?: unknown; transfer_privileges?: unknown; expires_at?: unknown; expires_in?: unknown },
    readonly requestId?: string,
  ) {}
}
