import type { Command } from 'commander';
import { collect, DATATYPES, logPoint, positiveInt, type LogPoint } from './args';

const audit = () => import('./audit.actions');

/** `mds events replay`: every read model as it was at a point of the log, in a schema of its own. */
export function replayCommand(events: Command): void {
  events
    .command('replay')
    .description('build every read model as it was at a point of the log into a separate PostgreSQL schema (the live ones are untouched)')
    .requiredOption('--until <position|time>', 'the last log position included, or a time (the last event appended at or before it)', logPoint)
    .requiredOption('--into <schema>', 'the schema to build (snake_case; must not exist yet)')
    .option('--replace', 'replace the schema if it holds an earlier replay')
    .action(async (opts: { until: LogPoint; into: string; replace?: boolean }) => (await import('./events.actions')).replay(opts));
}

/** `mds query`: a page of a read model as retrieval answers it, from the live read models or a replay's schema. */
export function queryCommand(program: Command): void {
  program
    .command('query <datatype>')
    .description(`a page of ${DATATYPES.join(', ')} as the API's retrieval gives it, from a replay's schema (--schema) or the live read models`)
    .option('--schema <schema>', 'a schema made by mds events replay')
    .option('--limit <n>', 'records in the page (at most 10,000)', positiveInt, 100)
    .option('--where <key=value>', 'equality filter, as the API\'s query parameters (repeatable)', collect)
    .action(async (datatype: string, opts: { schema?: string; limit: number; where?: string[] }) => (await audit()).query(datatype, opts));
}

/** `mds audit export`, `verify`, `public-key` and `checkpoint`. */
export function auditCommands(program: Command): void {
  const commands = program.command('audit').description("the auditors' export of the log, chained with SHA-256, and its verification");
  commands
    .command('export')
    .description('the log from --from to --to (both included) as JSON lines, each with the hash of the line before it and its own, then a line with the count and the chain head')
    .option('--from <position|time>', 'the first position (or the first event after a time)', logPoint)
    .option('--to <position|time>', 'the last position (or the last event at or before a time); the head when absent', logPoint)
    .option('--out <file>', 'write to this file (written beside it, then renamed) instead of standard output')
    .action(async (opts: { from?: LogPoint; to?: LogPoint; out?: string }) => (await audit()).exportLog(opts));
  commands
    .command('verify <file>')
    .description('check an export: every line as written, chained to the one before, the final count and head; with --public-key every signature too; names the first line that is not')
    .option('--public-key <file>', 'the service\'s audit public key (PEM, as GET /api/audit/public-key/ or `mds audit public-key` give it): checks the signed start, checkpoints and end')
    .action(async (file: string, opts: { publicKey?: string }) => (await audit()).verify(file, opts));
  commands
    .command('public-key')
    .description('print the public key of the audit signing key (PEM), for `mds audit verify --public-key`')
    .action(async () => (await audit()).publicKey());
  commands
    .command('checkpoint')
    .description('append a signed checkpoint of the audit chain to the log now (a projector does it every MDS_AUDIT_CHECKPOINT_MS)')
    .action(async () => (await audit()).checkpoint());
}
