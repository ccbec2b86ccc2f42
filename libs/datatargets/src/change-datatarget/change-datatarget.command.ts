import type { CommandMeta } from '../datatarget.decider';
import type { DatatargetChanged } from '../datatarget.events';

/** `PATCH /api/datatargets/{id}/`: name, description, enabled (false holds every outlet), retention_days (null: keep). */
export class ChangeDatatargetCommand {
  constructor(
    readonly datatargetId: string,
    readonly changes: DatatargetChanged['changes'],
    readonly meta: CommandMeta,
  ) {}
}
