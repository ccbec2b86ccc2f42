import type { CommandMeta } from '../datatarget.decider';
import type { OutletDefinition, OutletLogEntry } from '../datatarget.events';

/**
 * `POST …/outlets/{id}/test/`: one sample message sent as the outlet sends its batches (template,
 * signature, credentials), answered with how the receiver took it and logged as a test entry.
 */
export class SendTestCommand {
  constructor(
    readonly outlet: OutletDefinition,
    /** The datatarget's datatype (datasync), sent in the webhook-datatype header as for a batch. */
    readonly datatype: string | null,
    readonly meta: CommandMeta,
  ) {}
}

/** The test's log entry, and the log position that recorded it. */
export interface SentTest {
  entry: OutletLogEntry;
  position: number;
}
