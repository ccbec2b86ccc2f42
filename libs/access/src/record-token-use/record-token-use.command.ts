/** Sent by the API's authentication for every request a token makes; most are not recorded (see decideTokenUse). */
export class RecordTokenUseCommand {
  constructor(
    readonly tokenId: string,
    readonly ownerId: string,
    /** The token's last use as the access read model has it (null: never used). */
    readonly lastUsedAt: string | null,
    readonly requestId?: string,
  ) {}
}
