export class UnlockUserCommand {
  constructor(
    readonly username: string,
    readonly actor = 'system',
  ) {}
}
