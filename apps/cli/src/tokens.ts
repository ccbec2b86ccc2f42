import type { Command } from 'commander';
import { collect, seconds } from './args';

const actions = () => import('./tokens.actions');

/** `mds tokens create|list|revoke`. */
export function tokensCommands(tokens: Command): void {
  tokens
    .command('create')
    .description('create an access token for a user (prints the token once)')
    .requiredOption('--user <username>', 'owner of the token')
    .option('--name <name>', 'a name to recognise it by', '')
    .option('--scope <scope>', '"PATH" or "METHOD PATH" the token is limited to (repeatable)', collect)
    .action(async (opts: { user: string; name: string; scope?: string[] }) => (await actions()).createToken(opts));
  tokens
    .command('list')
    .description('access tokens (never their values), oldest first: id, owner, name, hint, created, last used, expires (revoked ones with --all)')
    .option('--json', 'one JSON object per line, as GET /api/access-tokens/ lists them')
    .option('--user <username>', "only this user's tokens")
    .option('--owner <owner_id>', 'only the tokens of users/<id> or integrations/<id>')
    .option('--all', 'revoked tokens too')
    .option('--timeout <seconds>', 'how long to wait for the access read model to catch up with the log', seconds, 10)
    .action(async (opts: { json?: boolean; user?: string; owner?: string; all?: boolean; timeout: number }) => (await actions()).listTokens(opts));
  tokens
    .command('revoke <id>')
    .description('revoke an access token for good (recorded as AccessTokenRevoked by cli); returns once every API process refuses it')
    .option('--timeout <seconds>', 'how long to wait for the projector to apply it', seconds, 30)
    .action(async (id: string, opts: { timeout: number }) => (await actions()).revokeToken(id, opts));
}
