import { InvalidArgumentError } from 'commander';
import { CLI_ACTOR, CreateUserTokenCommand, RevokeAccessTokenCommand, userIdFor, type MintedToken } from '#mds/access';
import { AppError, fixTimestampsInJson } from '#mds/platform';
import type { AccessTokenListed } from '#mds/projections';
import { printTable } from './args';
import { accessAt, accessCaughtUp, withCommands } from './cli-context';

export function createToken(opts: { user: string; name: string; scope?: string[] }): Promise<void> {
  const scopes = (opts.scope ?? []).map((s) => {
    const [a, b] = s.trim().split(/\s+/, 2);
    return b ? { method: a, path: b } : { path: a };
  });
  return withCommands(async ({ commands }) => {
    const minted: MintedToken = await commands.execute(new CreateUserTokenCommand(opts.user, opts.name, scopes, 'cli'));
    process.stdout.write(`${minted.access_token.token}\n`);
    process.stderr.write(`token ${minted.access_token.id} for ${opts.user} (${minted.access_token.hint}); it works once a projector has applied position ${minted.position}\n`);
  });
}

export function listTokens(opts: { json?: boolean; user?: string; owner?: string; all?: boolean; timeout: number }): Promise<void> {
  if (opts.user && opts.owner) throw new InvalidArgumentError('give --user or --owner, not both');
  return withCommands(async ({ access, progress }) => {
    await accessCaughtUp(progress, opts.timeout);
    const ownerId = opts.user ? `users/${userIdFor(opts.user)}` : opts.owner;
    const all: AccessTokenListed[] = [];
    for (let after: number | null = 0; after !== null; ) {
      const page = await access.listTokens({ ownerId, includeRevoked: opts.all === true, after, limit: 1000 });
      all.push(...page.tokens);
      after = page.next;
    }
    if (opts.json) {
      for (const t of all) process.stdout.write(`${fixTimestampsInJson(JSON.stringify(t))}\n`);
      return;
    }
    // Owners by name: a user's username (none once deleted), an integration's name.
    const names = new Map<string, string>([
      ...(await access.listUsers()).map((u): [string, string] => [`users/${u.user_id}`, u.username]),
      ...(await access.listIntegrations()).map((i): [string, string] => [`integrations/${i.id}`, i.name]),
    ]);
    const owner = (ownerId: string) => `${ownerId} (${names.get(ownerId) ?? (ownerId.startsWith('users/') ? 'deleted user' : 'unknown')})`;
    const rows = [['ID', 'OWNER', 'NAME', 'HINT', 'CREATED', 'LAST USED', 'EXPIRES', ...(opts.all ? ['REVOKED'] : [])]];
    for (const t of all) {
      rows.push([t.id, owner(t.owner_id), t.name || '-', t.hint, t.created_at, t.last_used_at ?? '-', t.expires_at ?? '-', ...(opts.all ? [t.revoked_at ? `${t.revoked_at} by ${t.revoked_by}` : '-'] : [])]);
    }
    printTable(rows);
  });
}

export function revokeToken(id: string, opts: { timeout: number }): Promise<void> {
  return withCommands(async ({ commands, access, progress }) => {
    let result: { position: number; revoked: boolean };
    try {
      result = await commands.execute(new RevokeAccessTokenCommand(id, CLI_ACTOR));
    } catch (err) {
      if (err instanceof AppError) throw new Error(err.message);
      throw err;
    }
    if (!(await accessAt(progress, result.position, opts.timeout))) {
      throw new Error(`token ${id} is revoked in the event log, but no projector applied it within ${opts.timeout} s (is the service, or \`mds projector\`, running?): the API refuses it once one has`);
    }
    const token = await access.token(id);
    const what = token ? `${token.hint} of ${token.owner_id}` : id;
    process.stdout.write(`${result.revoked ? 'revoked' : 'already revoked:'} token ${id} (${what}); every API process refuses it from now on\n`);
  });
}
