import type { AccessActor } from '../access.deps';

/** `PATCH /api/integrations/{id}/` `{enabled}`: false disables the integration and revokes its tokens. */
export class ChangeIntegrationCommand {
  constructor(
    readonly integrationId: string,
    readonly enabled: boolean,
    readonly by: AccessActor,
  ) {}
}
