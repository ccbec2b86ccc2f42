export class IssueTokenWithPasswordCommand {
  constructor(
    readonly username: string,
    readonly password: string,
    /** The `Service-TOTP-Code` header, when sent. */
    readonly totpCode: string | undefined,
    readonly body: { name?: unknown; scopes?: unknown; transfer_privileges?: unknown },
    readonly requestId?: string,
  ) {}
}
