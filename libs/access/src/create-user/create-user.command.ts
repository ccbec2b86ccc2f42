import type { Role } from '../roles';

export class CreateUserCommand {
  constructor(
    readonly username: string,
    readonly password: string,
    readonly roles: Role[],
    /** Base32 TOTP secret; when set, password logins also need the current code. */
    readonly totpSecret?: string,
    readonly actor = 'system',
  ) {}
}
