import { fixTimestampsInJson } from '#mds/platform';
import { InvalidArgumentError } from 'commander';
import {
  ChangeUserPasswordCommand,
  CLI_ACTOR,
  CreateUserCommand,
  DeleteUserCommand,
  generateTotpSecret,
  otpauthUrl,
  UnlockUserCommand,
  type ChangedPassword,
  type CreatedUser,
  type DeletedUser,
  type Role,
} from '#mds/access';
import { printTable, readStdin } from './args';
import { accessAt, accessCaughtUp, withCommands } from './cli-context';

/** The password of `users create` and `users set-password`: standard input with --password-stdin, else MDS_USER_PASSWORD. */
async function password(opts: { passwordStdin?: boolean }): Promise<string> {
  const password = opts.passwordStdin ? (await readStdin()).replace(/\r?\n$/, '') : process.env.MDS_USER_PASSWORD;
  if (!password) throw new InvalidArgumentError('give the password with --password-stdin or MDS_USER_PASSWORD');
  return password;
}

export async function createUser(username: string, opts: { role?: string[]; passwordStdin?: boolean; totp?: boolean }): Promise<void> {
  const secret = opts.totp ? generateTotpSecret() : undefined;
  const roles = (opts.role ?? ['staff']) as Role[];
  const given = await password(opts);
  await withCommands(async ({ commands }) => {
    const created: CreatedUser = await commands.execute(new CreateUserCommand(username, given, roles, secret, 'cli'));
    process.stdout.write(`created user ${created.username} (users/${created.user_id}) with roles ${created.roles.join(', ')}\n`);
    if (secret) process.stdout.write(`TOTP secret (shown once): ${secret}\n${otpauthUrl(secret, created.username)}\n`);
  });
}

export function listUsers(opts: { json?: boolean; timeout: number }): Promise<void> {
  return withCommands(async ({ access, progress, lockoutFailures }) => {
    await accessCaughtUp(progress, opts.timeout);
    const users = (await access.listUsers()).map((u) => ({ ...u, locked: u.failed_logins >= lockoutFailures }));
    if (opts.json) {
      for (const u of users) process.stdout.write(`${fixTimestampsInJson(JSON.stringify(u))}\n`);
      return;
    }
    printTable([
      ['USERNAME', 'ROLES', 'TOTP', 'LOCKED', 'CREATED'],
      ...users.map((u) => [u.username, u.roles.join(','), u.totp ? 'on' : 'off', u.locked ? `yes (${u.failed_logins} failed logins)` : 'no', u.created_at]),
    ]);
  });
}

export async function setPassword(username: string, opts: { passwordStdin?: boolean }): Promise<void> {
  const given = await password(opts);
  await withCommands(async ({ commands }) => {
    const changed: ChangedPassword = await commands.execute(new ChangeUserPasswordCommand(username, given, 'cli'));
    process.stdout.write(`changed the password of ${changed.username}; logins need the new one from now on\n`);
    if (changed.locked) process.stdout.write(`${changed.username} is still locked after too many failed logins: mds users unlock ${changed.username}\n`);
  });
}

export function unlockUser(username: string): Promise<void> {
  return withCommands(async ({ commands }) => {
    const r: { failures: number } = await commands.execute(new UnlockUserCommand(username, 'cli'));
    process.stdout.write(`unlocked ${username} (${r.failures} failed logins forgotten)\n`);
  });
}

export function deleteUser(username: string, opts: { timeout: number }): Promise<void> {
  return withCommands(async ({ commands, progress }) => {
    const deleted: DeletedUser = await commands.execute(new DeleteUserCommand(username, CLI_ACTOR));
    const tokens = `${deleted.revoked.length} token(s) revoked`;
    if (!(await accessAt(progress, deleted.position, opts.timeout))) {
      throw new Error(
        `user ${deleted.username} is deleted in the event log (${tokens}), but no projector applied it within ${opts.timeout} s (is the service, or \`mds projector\`, running?): the API refuses their tokens once one has`,
      );
    }
    process.stdout.write(`deleted user ${deleted.username} (users/${deleted.user_id}), ${tokens}; every API process refuses their tokens from now on\n`);
  });
}
