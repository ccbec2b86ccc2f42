import type { CommandMeta } from '../datatarget.decider';

/** `POST /api/datatargets/{id}/post/` `{messages: [...]}` (the body as sent: up to 10,000 free-form objects). */
export class PostMessagesCommand {
  constructor(
    readonly datatargetId: string,
    readonly body: unknown,
    readonly meta: CommandMeta,
  ) {}
}
