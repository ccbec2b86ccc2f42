#!/usr/bin/env node
import { Command } from 'commander';
import { collect, positiveInt } from './args';
import { auditCommands, queryCommand, replayCommand } from './audit';
import { customersCommands } from './customers';
import { tokensCommands } from './tokens';
import { usersCommands } from './users';

// The command definitions only: each action loads what it runs on (the runtime, Nest, the projections)
// when it runs, so `mds --help` and argument errors answer without loading the service.

const serve = (...parts: Array<'api' | 'projector' | 'outlet-worker'>) => async () => (await import('./serve')).serve(parts);
const projections = () => import('./projections.actions');

export function buildCli(): Command {
  const program = new Command('mds').description('Marketing Data Service: run the service and operate its event log and read models');
  program.command('start').description('API + projections + outlet worker in one process (embedded PostgreSQL unless DATABASE_URL)').action(serve('api', 'projector', 'outlet-worker'));
  program.command('api').description('only the HTTP API').action(serve('api'));
  program.command('projector').description('only the projections (one active projector per projection, others stand by)').action(serve('projector'));
  program.command('outlet-worker').description('only the webhook outlet worker').action(serve('outlet-worker'));

  const projection = program.command('projections').description('read models built from the event log');
  projection
    .command('list')
    .alias('status')
    .description('name, version, checkpoint and lag in events of every projection')
    .option('--json', 'one JSON object per line')
    .action(async (opts: { json?: boolean }) => (await projections()).listProjections(opts));
  projection
    .command('rebuild <name>')
    .description('rebuild from position 0 beside the serving tables, then switch (blue/green)')
    .action(async (name: string) => (await projections()).rebuild(name));
  projection
    .command('parked [name]')
    .description('events a projection could not apply and went past: position, stream, type, error')
    .option('--json', 'one JSON object per line')
    .action(async (name: string | undefined, opts: { json?: boolean }) => (await projections()).parked(name, opts));
  projection
    .command('retry <name>')
    .description('apply the parked events of a projection again (after an upgrade fixed the cause); exits 1 while any stays parked')
    .action(async (name: string) => (await projections()).retry(name));

  usersCommands(program.command('users').description('user accounts (passwords are stored as scrypt hashes only)'));
  tokensCommands(program.command('tokens').description('access tokens'));

  const events = program.command('events').description('the event log');
  events
    .command('read')
    .description('print events as JSON lines, in log order')
    .option('--from <position>', 'first position to print', positiveInt, 1)
    .option('--stream <stream>', 'only this stream')
    .option('--type <type>', 'only this event type (repeatable)', collect)
    .option('--limit <n>', 'print at most n events', positiveInt)
    .action(async (opts: { from: number; stream?: string; type?: string[]; limit?: number }) => (await import('./events.actions')).readEvents(opts));
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
