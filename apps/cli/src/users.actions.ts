import { InvalidArgumentError } from 'commander';
import { CreateUserCommand, generateTotpSecret, otpauthUrl, UnlockUserCommand, type CreatedUser, type Role } from '#mds/access';
import { readStdin } from './args';
import { withCommands } from './cli-context';

export async function createUser(username: string, opts: { role?: string[]; passwordStdin?: boolean; totp?: boolean }): Promise<void> {
  const password = opts.passwordStdin ? (await readStdin()).replace(/\r?\n$/, '') : process.env.MDS_USER_PASSWORD;
  if (!password) throw new InvalidArgumentError('give the password with --password-stdin or MDS_USER_PASSWORD');
  const secret = opts.totp ? generateTotpSecret() : undefined;
  const roles = (opts.role ?? ['staff']) as Role[];
  await withCommands(async ({ commands }) => {
    const created: CreatedUser = await commands.execute(new CreateUserCommand(username, password, roles, secret, 'cli'));
    process.stdout.write(`created user ${created.username} (users/${created.user_id}) with roles ${created.roles.join(', ')}\n`);
    if (secret) process.stdout.write(`TOTP secret (shown once): ${secret}\n${otpauthUrl(secret, created.username)}\n`);
  });
}

export function unlockUser(username: string): Promise<void> {
  return withCommands(async ({ commands }) => {
    const r: { failures: number } = await commands.execute(new UnlockUserCommand(username, 'cli'));
    process.stdout.write(`unlocked ${username} (${r.failures} failed logins forgotten)\n`);
  });
}
