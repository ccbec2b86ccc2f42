import type { Principal } from '../access.deps';

export class CreateAccessTokenCommand {
  constructor(
    readonly principal: Principal,
    readonly body: { name?: unknown; owner_id?: unknown; scopes?: unknown; transfer_privileges?: unknown },
    readonly requestId?: string,
  ) {}
}
