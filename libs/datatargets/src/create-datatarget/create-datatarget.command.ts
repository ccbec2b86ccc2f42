import type { CommandMeta } from '../datatarget.decider';

/** `POST /api/datatargets/`: a messages datatarget, or a datasync one following a datatype. */
export class CreateDatatargetCommand {
  constructor(
    readonly input: { datatarget_type: 'messages' | 'datasync'; name: string; description?: string; datatype?: string | null; retention_days?: number | null },
    readonly meta: CommandMeta,
  ) {}
}
