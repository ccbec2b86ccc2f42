/**
 * An operator (`mds tokens create`) creates an access token for a user named on the command line:
 * no caller's principal to check, the operator has the database's credentials. `scopes` as given
 * (`{method?, path}`), checked by the handler.
 */
export class CreateUserTokenCommand {
  constructor(
    readonly username: string,
    readonly name: string,
    readonly scopes: unknown[],
    readonly actor = 'cli',
  ) {}
}
