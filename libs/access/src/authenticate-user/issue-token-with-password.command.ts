export class IssueTokenWithPasswordCommand {
  constructor(
    readonly username: string,
    readonly password: string,
    /** The `Service-TOTP-Code` header, when sent. */
    readonly totpCode: string | undefined,
    readonly body: { name?: unknown; scopes?: unknown; transfer_privileges?: unknown; expires_at?: unknown; expires_in?: unknown },
    readonly requestId?: string,
  ) {}
}
