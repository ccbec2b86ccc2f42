import { InvalidArgumentError, type Command } from 'commander';
import { CLI_ACTOR, RevokeAccessTokenCommand, RevokeAccessTokenHandler, userIdFor } from '#mds/access';
import { AppError } from '#mds/platform';
import { findAccessToken, listAccessTokens, ProjectionTimeoutError, waitForProjection, type AccessTokenListed } from '#mds/projections';
import type { Runtime } from '#mds/runtime';
import { withRuntime } from './cli-runtime';

const seconds = (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a number of seconds > 0');
  return n;
};

/** Waits until the access read model has everything up to `position`; false when no projector got there in time. */
async function accessAt(runtime: Runtime, position: number, timeoutS: number): Promise<boolean> {
  try {
    await waitForProjection(runtime.pool, 'access', position, { timeoutMs: timeoutS * 1000, notifications: runtime.notifications });
    return true;
  } catch (err) {
    if (err instanceof ProjectionTimeoutError) return false;
    throw err;
  }
}

/** `mds tokens list` and `mds tokens revoke`, beside `mds tokens create`. */
export function tokensCommands(tokens: Command): void {
  tokens
    .command('list')
    .description('access tokens (never their values), oldest first: id, owner, name, hint, created, last used, expires (revoked ones with --all)')
    .option('--json', 'one JSON object per line, as GET /api/access-tokens/ lists them')
    .option('--user <username>', "only this user's tokens")
    .option('--owner <owner_id>', 'only the tokens of users/<id> or integrations/<id>')
    .option('--all', 'revoked tokens too')
    .option('--timeout <seconds>', 'how long to wait for the access read model to catch up with the log', seconds, 10)
    .action((opts: { json?: boolean; user?: string; owner?: string; all?: boolean; timeout: number }) =>
      withRuntime(async (runtime) => {
        if (opts.user && opts.owner) throw new InvalidArgumentError('give --user or --owner, not both');
        if (!(await accessAt(runtime, await runtime.store.headPosition(), opts.timeout))) {
          process.stderr.write(`the access read model is behind the log (is a projector running?): the latest changes may be missing\n`);
        }
        const ownerId = opts.user ? `users/${userIdFor(opts.user)}` : opts.owner;
        const all: AccessTokenListed[] = [];
        for (let after: number | null = 0; after !== null; ) {
          const page = await listAccessTokens(runtime.pool, { ownerId, includeRevoked: opts.all === true, after, limit: 1000 });
          all.push(...page.tokens);
          after = page.next;
        }
        if (opts.json) {
          for (const t of all) process.stdout.write(`${JSON.stringify(t)}\n`);
          return;
        }
        const rows = [['ID', 'OWNER', 'NAME', 'HINT', 'CREATED', 'LAST USED', 'EXPIRES', ...(opts.all ? ['REVOKED'] : [])]];
        for (const t of all) {
          rows.push([t.id, t.owner_id, t.name || '-', t.hint, t.created_at, t.last_used_at ?? '-', t.expires_at ?? '-', ...(opts.all ? [t.revoked_at ? `${t.revoked_at} by ${t.revoked_by}` : '-'] : [])]);
        }
        const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
        for (const r of rows) process.stdout.write(`${r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()}\n`);
      }),
    );
  tokens
    .command('revoke <id>')
    .description('revoke an access token for good (recorded as AccessTokenRevoked by cli); returns once every API process refuses it')
    .option('--timeout <seconds>', 'how long to wait for the projector to apply it', seconds, 30)
    .action((id: string, opts: { timeout: number }) =>
      withRuntime(async (runtime) => {
        let result: { position: number; revoked: boolean };
        try {
          result = await new RevokeAccessTokenHandler(runtime.store, runtime.accessDeps).execute(new RevokeAccessTokenCommand(id, CLI_ACTOR));
        } catch (err) {
          if (err instanceof AppError) throw new Error(err.message);
          throw err;
        }
        if (!(await accessAt(runtime, result.position, opts.timeout))) {
          throw new Error(`token ${id} is revoked in the event log, but no projector applied it within ${opts.timeout} s (is the service, or \`mds projector\`, running?): the API refuses it once one has`);
        }
        const token = await findAccessToken(runtime.pool, id);
        const what = token ? `${token.hint} of ${token.owner_id}` : id;
        process.stdout.write(`${result.revoked ? 'revoked' : 'already revoked:'} token ${id} (${what}); every API process refuses it from now on\n`);
      }),
    );
}
