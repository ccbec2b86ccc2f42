#!/usr/bin/env node
import 'reflect-metadata';
import { Command, InvalidArgumentError } from 'commander';
import { maskSealed } from '#mds/platform';
import { listParked, projectionStatuses, rebuildProjection, retryParked, type Projection, type RebuildProgress } from '#mds/projections';
import { progressPrinter, type Progress } from './progress';
import { auditCommands, queryCommand, replayCommand } from './audit';
import { positiveInt, withRuntime } from './cli-runtime';
import { serve } from './serve';
import { customersCommands } from './customers';
import { tokensCommands } from './tokens';
import {
  CreateUserCommand,
  CreateUserHandler,
  generateTotpSecret,
  loadUser,
  mintToken,
  otpauthUrl,
  parseScopes,
  UnlockUserCommand,
  UnlockUserHandler,
  userIdFor,
  type Role,
} from '#mds/access';

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d) => (data += d));
    process.stdin.on('end', () => resolve(data));
    process.stdin.on('error', reject);
  });
}

function projectionNamed(all: Projection[], name: string): Projection {
  const projection = all.find((p) => p.name === name);
  if (!projection) throw new InvalidArgumentError(`unknown projection "${name}"; known: ${all.map((p) => p.name).join(', ')}`);
  return projection;
}

function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) process.stdout.write(`${r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()}\n`);
}

export function buildCli(): Command {
  const program = new Command('mds').description('Marketing Data Service: run the service and operate its event log and read models');
  program.command('start').description('API + projections + outlet worker in one process (embedded PostgreSQL unless DATABASE_URL)').action(() => serve(['api', 'projector', 'outlet-worker']));
  program.command('api').description('only the HTTP API').action(() => serve(['api']));
  program.command('projector').description('only the projections (one active projector per projection, others stand by)').action(() => serve(['projector']));
  program.command('outlet-worker').description('only the webhook outlet worker').action(() => serve(['outlet-worker']));

  const projections = program.command('projections').description('read models built from the event log');
  projections
    .command('list')
    .alias('status')
    .description('name, version, checkpoint and lag in events of every projection')
    .option('--json', 'one JSON object per line')
    .action((opts: { json?: boolean }) =>
      withRuntime(async (runtime) => {
        const statuses = await projectionStatuses(runtime.pool, runtime.store, runtime.projections);
        if (opts.json) {
          for (const s of statuses) process.stdout.write(`${JSON.stringify(s)}\n`);
          return;
        }
        const rows = [['NAME', 'VERSION', 'GENERATION', 'CHECKPOINT', 'LAG', 'REBUILDING']];
        for (const s of statuses) {
          rows.push([
            s.name,
            String(s.version) + (s.liveVersion !== undefined && s.liveVersion !== s.version ? ` (live v${s.liveVersion})` : ''),
            s.generation === undefined ? '-' : String(s.generation),
            String(s.checkpoint),
            String(s.lag),
            s.building ? `g${s.building.generation} v${s.building.version} at ${s.building.checkpoint}` : '-',
          ]);
        }
        printTable(rows);
      }),
    );
  projections
    .command('rebuild <name>')
    .description('rebuild from position 0 beside the serving tables, then switch (blue/green)')
    .action((name: string) =>
      withRuntime(async (runtime) => {
        const projection = projectionNamed(runtime.projections, name);
        const printer = progressPrinter();
        let last: Progress | undefined;
        const shown = (p: RebuildProgress): Progress => ({ label: `${p.projection} g${p.generation}`, ...p });
        const result = await rebuildProjection(runtime.runnerDeps(), projection, { onProgress: (p) => printer.update((last = shown(p))) });
        printer.done(last);
        process.stdout.write(
          `rebuilt ${name}: generation ${result.generation} is live${result.retired ? ` (generation ${result.retired} retired)` : ''}; ` +
            `${result.events} events in ${result.seconds.toFixed(1)} s (${Math.round(result.events / Math.max(result.seconds, 0.001))} events/s)\n`,
        );
        const parked = await listParked(runtime.pool, name);
        if (parked.length > 0) process.stdout.write(`${parked.length} event(s) parked: see mds projections parked ${name}\n`);
      }),
    );

  projections
    .command('parked [name]')
    .description('events a projection could not apply and went past: position, stream, type, error')
    .option('--json', 'one JSON object per line')
    .action((name: string | undefined, opts: { json?: boolean }) =>
      withRuntime(async (runtime) => {
        if (name !== undefined) projectionNamed(runtime.projections, name);
        const parked = await listParked(runtime.pool, name);
        if (opts.json) {
          for (const p of parked) process.stdout.write(`${JSON.stringify(p)}\n`);
          return;
        }
        if (parked.length === 0) {
          process.stdout.write(`no parked events${name ? ` in ${name}` : ''}\n`);
          return;
        }
        printTable([
          ['PROJECTION', 'GENERATION', 'POSITION', 'STREAM', 'TYPE', 'ATTEMPTS', 'PARKED AT', 'ERROR'],
          ...parked.map((p) => [p.projection, String(p.generation), String(p.position), p.stream, p.type, String(p.attempts), p.parked_at, p.error]),
        ]);
      }),
    );
  projections
    .command('retry <name>')
    .description('apply the parked events of a projection again (after an upgrade fixed the cause); exits 1 while any stays parked')
    .action((name: string) =>
      withRuntime(async (runtime) => {
        const result = await retryParked(runtime.runnerDeps(), projectionNamed(runtime.projections, name));
        process.stdout.write(`${name}: ${result.applied} parked event(s) applied, ${result.stillParked.length} still parked\n`);
        for (const p of result.stillParked) process.stdout.write(`  position ${p.position}: ${p.error}\n`);
        if (result.stillParked.length > 0) process.exitCode = 1;
      }),
    );

  const users = program.command('users').description('user accounts (passwords are stored as scrypt hashes only)');
  users
    .command('create <username>')
    .description('create a user; the password comes from MDS_USER_PASSWORD or, with --password-stdin, from standard input')
    .option('--role <role>', 'superuser, admin, staff or auditor (repeatable)', (v: string, all: string[] = []) => [...all, v])
    .option('--password-stdin', 'read the password from standard input')
    .option('--totp', 'turn on two-factor authentication: prints the new TOTP secret once')
    .action((username: string, opts: { role?: string[]; passwordStdin?: boolean; totp?: boolean }) =>
      withRuntime(async (runtime) => {
        const password = opts.passwordStdin ? (await readStdin()).replace(/\r?\n$/, '') : process.env.MDS_USER_PASSWORD;
        if (!password) throw new InvalidArgumentError('give the password with --password-stdin or MDS_USER_PASSWORD');
        const secret = opts.totp ? generateTotpSecret() : undefined;
        const roles = (opts.role ?? ['staff']) as Role[];
        const created = await new CreateUserHandler(runtime.store, runtime.accessDeps).execute(new CreateUserCommand(username, password, roles, secret, 'cli'));
        process.stdout.write(`created user ${created.username} (users/${created.user_id}) with roles ${created.roles.join(', ')}\n`);
        if (secret) process.stdout.write(`TOTP secret (shown once): ${secret}\n${otpauthUrl(secret, created.username)}\n`);
      }),
    );
  users
    .command('unlock <username>')
    .description('reset the failed-login counter of a locked account')
    .action((username: string) =>
      withRuntime(async (runtime) => {
        const r = await new UnlockUserHandler(runtime.store, runtime.accessDeps).execute(new UnlockUserCommand(username, 'cli'));
        process.stdout.write(`unlocked ${username} (${r.failures} failed logins forgotten)\n`);
      }),
    );

  const tokens = program.command('tokens').description('access tokens');
  tokens
    .command('create')
    .description('create an access token for a user (prints the token once)')
    .requiredOption('--user <username>', 'owner of the token')
    .option('--name <name>', 'a name to recognise it by', '')
    .option('--scope <scope>', '"PATH" or "METHOD PATH" the token is limited to (repeatable)', (v: string, all: string[] = []) => [...all, v])
    .action((opts: { user: string; name: string; scope?: string[] }) =>
      withRuntime(async (runtime) => {
        const userId = userIdFor(opts.user);
        const { state } = await loadUser(runtime.store, userId);
        if (!state.exists) throw new InvalidArgumentError(`no user "${opts.user}"`);
        const scopes = parseScopes((opts.scope ?? []).map((s) => {
          const [a, b] = s.trim().split(/\s+/, 2);
          return b ? { method: a, path: b } : { path: a };
        }));
        const minted = await mintToken(runtime.store, { ownerId: `users/${userId}`, name: opts.name, createdBy: 'cli', scopes, transferredRoles: [], now: new Date().toISOString() });
        process.stdout.write(`${minted.access_token.token}\n`);
        process.stderr.write(`token ${minted.access_token.id} for ${opts.user} (${minted.access_token.hint}); it works once a projector has applied position ${minted.position}\n`);
      }),
    );
  tokensCommands(tokens);

  const events = program.command('events').description('the event log');
  events
    .command('read')
    .description('print events as JSON lines, in log order')
    .option('--from <position>', 'first position to print', positiveInt, 1)
    .option('--stream <stream>', 'only this stream')
    .option('--type <type>', 'only this event type (repeatable)', (v: string, all: string[] = []) => [...all, v])
    .option('--limit <n>', 'print at most n events', positiveInt)
    .action((opts: { from: number; stream?: string; type?: string[]; limit?: number }) =>
      withRuntime(async (runtime) => {
        let remaining = opts.limit ?? Number.POSITIVE_INFINITY;
        const write = (line: string) => (process.stdout.write(line) ? Promise.resolve() : new Promise<void>((r) => process.stdout.once('drain', () => r())));
        if (opts.stream) {
          for (const e of await runtime.store.readStream(opts.stream)) {
            if (remaining <= 0) break;
            if (e.position < opts.from || (opts.type && !opts.type.includes(e.type))) continue;
            await write(`${JSON.stringify({ ...e, data: maskSealed(e.data) })}\n`);
            remaining--;
          }
          return;
        }
        let after = Math.max(opts.from - 1, 0);
        while (remaining > 0) {
          const page = await runtime.store.readAll({ after, limit: Math.min(1000, remaining), filter: opts.type ? { types: opts.type } : undefined });
          for (const e of page.events) await write(`${JSON.stringify({ ...e, data: maskSealed(e.data) })}\n`);
          remaining -= page.events.length;
          if (page.position === after) break;
          after = page.position;
        }
      }),
    );
  replayCommand(events);
  queryCommand(program);
  auditCommands(program);
  customersCommands(program);
  return program;
}

if (require.main === module) {
  buildCli()
    .parseAsync(process.argv)
    .catch((err: Error) => {
      process.stderr.write(`mds: ${err.message}\n`);
      process.exit(1);
    });
}
