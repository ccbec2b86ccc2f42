import type { CommandMeta } from '../datatarget.decider';
import type { OutletDefinition } from '../datatarget.events';
import type { OutletInput } from '../create-outlet/create-outlet.command';

/** `PATCH …/outlets/{id}/`: only what is sent changes; `enabled` pauses or resumes. */
export class ChangeOutletCommand {
  constructor(
    readonly current: OutletDefinition,
    readonly input: OutletInput,
    readonly meta: CommandMeta,
  ) {}
}
