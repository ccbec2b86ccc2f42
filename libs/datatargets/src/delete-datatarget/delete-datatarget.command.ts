import type { CommandMeta } from '../datatarget.decider';

/** `DELETE /api/datatargets/{id}/`: the datatarget and its outlets go; its events stay in the log. */
export class DeleteDatatargetCommand {
  constructor(
    readonly datatargetId: string,
    readonly meta: CommandMeta,
  ) {}
}
