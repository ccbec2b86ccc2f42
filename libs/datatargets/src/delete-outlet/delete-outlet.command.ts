import type { CommandMeta } from '../datatarget.decider';
import type { OutletDefinition } from '../datatarget.events';

/** `DELETE …/outlets/{id}/`: the outlet stops; its log stays in the event log. */
export class DeleteOutletCommand {
  constructor(
    readonly current: OutletDefinition,
    readonly meta: CommandMeta,
  ) {}
}
