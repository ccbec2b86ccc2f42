import type { CommandMeta, OutletRequestInput, OutletStart } from '../datatarget.decider';

/** An outlet as created or patched: the request and batching, the signing secret in clear (sealed by the handler). */
export interface OutletInput {
  request?: OutletRequestInput;
  is_batched?: boolean;
  max_batch_size?: number;
  min_request_interval?: number | string;
  /** null or "" removes it (patch). */
  secret?: string | null;
  enabled?: boolean;
  /** Creation only: `beginning` (default) delivers from message 1, `now` from the first message posted after it. */
  start?: OutletStart;
}

/** `POST /api/datatargets/{id}/outlets/`: a webhook outlet delivering the datatarget's messages. */
export class CreateOutletCommand {
  constructor(
    readonly datatargetId: string,
    readonly input: OutletInput,
    readonly meta: CommandMeta,
    /**
     * The datatarget's last message number as the read side shows it: where `start: "now"` starts
     * for a datasync datatarget, whose messages are numbered by its read model, not in its stream.
     */
    readonly shownLastMessageNumber = 0,
  ) {}
}
