import type { AccessActor } from '../access.deps';

/** `DELETE /api/access-tokens/{id}/` and `mds tokens revoke <id>`. */
export class RevokeAccessTokenCommand {
  constructor(
    readonly tokenId: string,
    readonly by: AccessActor,
  ) {}
}
