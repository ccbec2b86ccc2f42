export class ChangeUserPasswordCommand {
  constructor(
    readonly username: string,
    readonly password: string,
    readonly actor = 'system',
  ) {}
}
