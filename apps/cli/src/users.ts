import type { Command } from 'commander';
import { collect, seconds } from './args';

const actions = () => import('./users.actions');

/** `mds users create|list|set-password|unlock|delete`. */
export function usersCommands(users: Command): void {
  users
    .command('create <username>')
    .description('create a user; the password comes from MDS_USER_PASSWORD or, with --password-stdin, from standard input')
    .option('--role <role>', 'superuser, admin, staff or auditor (repeatable)', collect)
    .option('--password-stdin', 'read the password from standard input')
    .option('--totp', 'turn on two-factor authentication: prints the new TOTP secret once')
    .action(async (username: string, opts: { role?: string[]; passwordStdin?: boolean; totp?: boolean }) => (await actions()).createUser(username, opts));
  users
    .command('list')
    .description('every user, oldest first: username, roles, TOTP on or off, locked, created')
    .option('--json', 'one JSON object per line')
    .option('--timeout <seconds>', 'how long to wait for the access read model to catch up with the log', seconds, 10)
    .action(async (opts: { json?: boolean; timeout: number }) => (await actions()).listUsers(opts));
  users
    .command('set-password <username>')
    .description("set a user's password (8 to 1024 characters) from MDS_USER_PASSWORD or, with --password-stdin, from standard input")
    .option('--password-stdin', 'read the password from standard input')
    .action(async (username: string, opts: { passwordStdin?: boolean }) => (await actions()).setPassword(username, opts));
  users
    .command('unlock <username>')
    .description('reset the failed-login counter of a locked account')
    .action(async (username: string) => (await actions()).unlockUser(username));
  users
    .command('delete <username>')
    .description('delete a user and revoke their tokens (not the last superuser); returns once every API process refuses the tokens')
    .option('--timeout <seconds>', 'how long to wait for the projector to apply it', seconds, 30)
    .action(async (username: string, opts: { timeout: number }) => (await actions()).deleteUser(username, opts));
}
