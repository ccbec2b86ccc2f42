import type { CommandMeta } from '../datatarget.decider';

/** What an operator may do to an outlet (the control routes, and their enum in the OpenAPI document). */
export const OPERATOR_ACTIONS = ['pause', 'resume', 'retry', 'rewind'] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

/** `POST …/outlets/{id}/pause|resume|retry|rewind/`: an operator's control of delivery. */
export class ControlOutletCommand {
  constructor(
    readonly outletId: string,
    readonly action: OperatorAction,
    readonly meta: CommandMeta,
    readonly toMessageNumber?: number,
  ) {}
}
