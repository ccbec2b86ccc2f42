import type { Principal } from '../access.deps';

export class CreateIntegrationCommand {
  constructor(
    readonly principal: Principal,
    /** `{integration_name, parameters: {name, description}}`, or the older plugins' `{name, description}`. */
    readonly body: { integration_name?: unknown; parameters?: unknown; name?: unknown; description?: unknown },
    readonly requestId?: string,
  ) {}
}
