import type { Principal } from '../access.deps';

/** Legacy `POST /api/datasources/` `{name, integration, datatype}`. */
export class CreateDatasourceCommand {
  constructor(
    readonly principal: Principal,
    readonly body: { name?: unknown; integration?: unknown; datatype?: unknown },
    readonly requestId?: string,
  ) {}
}
