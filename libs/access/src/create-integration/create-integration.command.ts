import type { Principal } from '../access.deps';

export class CreateIntegrationCommand {
  constructor(
    readonly principal: Principal,
    readonly body: { integration_name?: unknown; parameters?: unknown },
    readonly requestId?: string,
  ) {}
}
