import type { CommandMeta } from '../datatarget.decider';

export type OperatorAction = 'pause' | 'resume' | 'retry' | 'rewind';

/** `POST …/outlets/{id}/pause|resume|retry|rewind/`: an operator's control of delivery. */
export class ControlOutletCommand {
  constructor(
    readonly outletId: string,
    readonly action: OperatorAction,
    readonly meta: CommandMeta,
    readonly toMessageNumber?: number,
  ) {}
}
