import type { CommandMeta } from '../datatarget.decider';
import type { DatatargetChanged } from '../datatarget.events';

/** `PATCH /api/datatargets/{id}/`: name, description, enabled (false holds every outlet). */
export class ChangeDatatargetCommand {
  constructor(
    readonly datatargetId: string,
    readonly changes: DatatargetChanged['changes'],
    readonly meta: CommandMeta,
  ) {}
}
