import type { CommandMeta, OutletRequestInput } from '../datatarget.decider';

/** An outlet as created or patched: the request and batching, the signing secret in clear (sealed by the handler). */
export interface OutletInput {
  request?: OutletRequestInput;
  is_batched?: boolean;
  max_batch_size?: number;
  min_request_interval?: number | string;
  /** null or "" removes it (patch). */
  secret?: string | null;
  enabled?: boolean;
}

/** `POST /api/datatargets/{id}/outlets/`: a webhook outlet delivering the datatarget's messages. */
export class CreateOutletCommand {
  constructor(
    readonly datatargetId: string,
    readonly input: OutletInput,
    readonly meta: CommandMeta,
  ) {}
}
