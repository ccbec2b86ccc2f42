import type { AccessActor } from '../access.deps';

/** `mds users delete <username>`. */
export class DeleteUserCommand {
  constructor(
    readonly username: string,
    readonly by: AccessActor,
  ) {}
}
