import * as fs from 'node:fs';
import * as readline from 'node:readline';
import { finished } from 'node:stream/promises';
import { InvalidArgumentError, type Command } from 'commander';
import type { Runtime } from '#mds/runtime';
import { readPublicKey } from '#mds/platform';
import {
  appendCheckpoint,
  exportLines,
  listCampaigns,
  listCustomers,
  listEvents,
  listProducts,
  listSales,
  positionAtTime,
  replayInto,
  verifyExport,
  withReplaySchema,
  type ExportProgress,
} from '#mds/projections';
import { withRuntime, positiveInt } from './cli-runtime';
import { progressPrinter, rateAndEta, type Progress } from './progress';

/** A point of the log as given on the command line: a position, or a time (the last event at or before it). */
function logPoint(value: string): { position: number } | { time: string } {
  if (/^\d+$/.test(value)) return { position: positiveInt(value) };
  if (/^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value))) return { time: new Date(value).toISOString() };
  throw new InvalidArgumentError('must be a log position (a whole number) or an ISO 8601 time, e.g. 2026-03-01T10:00:00Z');
}

async function resolvePoint(runtime: Runtime, point: { position: number } | { time: string }): Promise<number> {
  return 'position' in point ? point.position : positionAtTime(runtime.store, point.time);
}

const write = (out: NodeJS.WritableStream, text: string) => (out.write(text) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));

/** `mds events replay`: every read model as it was at a point of the log, in a schema of its own. */
export function replayCommand(events: Command): void {
  events
    .command('replay')
    .description('build every read model as it was at a point of the log into a separate PostgreSQL schema (the live ones are untouched)')
    .requiredOption('--until <position|time>', 'the last log position included, or a time (the last event appended at or before it)', logPoint)
    .requiredOption('--into <schema>', 'the schema to build (snake_case; must not exist yet)')
    .option('--replace', 'replace the schema if it holds an earlier replay')
    .action((opts: { until: { position: number } | { time: string }; into: string; replace?: boolean }) =>
      withRuntime(async (runtime) => {
        const until = Math.min(await resolvePoint(runtime, opts.until), await runtime.store.headPosition());
        const printer = progressPrinter();
        let last: Progress | undefined;
        const result = await replayInto(runtime.runnerDeps(), runtime.projections, {
          until,
          schema: opts.into,
          replace: opts.replace,
          onProgress: (p) =>
            printer.update(
              (last = { label: `replay ${p.projection} (${p.step}/${p.steps})`, position: p.position, head: p.until, eventsPerSecond: p.eventsPerSecond, etaSeconds: p.etaSeconds }),
            ),
        });
        printer.done(last);
        // Events applied per read model: an event several read models take counts once for each.
        const taken = result.projections.map((p) => `${p.name} ${p.events.toLocaleString('en')}`).join(', ');
        process.stdout.write(
          `replayed ${result.projections.length} read models to position ${result.until} into schema ${result.schema} in ${result.seconds.toFixed(1)} s: ` +
            `${result.events.toLocaleString('en')} events applied in all (${taken})\n` +
            `read them with: mds query <customers|products|events|sales|campaigns> --schema ${result.schema}, or in SQL after SET search_path = ${result.schema}, public\n`,
        );
      }),
    );
}

const DATATYPES = ['customers', 'products', 'events', 'sales', 'campaigns'] as const;

/** `mds query`: a page of a read model as retrieval answers it, from the live read models or a replay's schema. */
export function queryCommand(program: Command): void {
  program
    .command('query <datatype>')
    .description(`a page of ${DATATYPES.join(', ')} as the API's retrieval gives it, from a replay's schema (--schema) or the live read models`)
    .option('--schema <schema>', 'a schema made by mds events replay')
    .option('--limit <n>', 'records in the page (at most 10,000)', positiveInt, 100)
    .option('--where <key=value>', 'equality filter, as the API\'s query parameters (repeatable)', (v: string, all: string[] = []) => [...all, v])
    .action((datatype: string, opts: { schema?: string; limit: number; where?: string[] }) =>
      withRuntime(async (runtime) => {
        if (!(DATATYPES as readonly string[]).includes(datatype)) throw new InvalidArgumentError(`datatype must be one of ${DATATYPES.join(', ')}`);
        if (opts.limit < 1 || opts.limit > 10_000) throw new InvalidArgumentError('--limit must be from 1 to 10000');
        const filters: Record<string, string> = {};
        for (const w of opts.where ?? []) {
          const at = w.indexOf('=');
          if (at < 1) throw new InvalidArgumentError(`--where ${w}: give key=value`);
          filters[w.slice(0, at)] = w.slice(at + 1);
        }
        const page = async (db: Runtime['pool']): Promise<unknown[]> => {
          switch (datatype) {
            case 'customers':
              return JSON.parse(`[${(await listCustomers(db, { limit: opts.limit, filters })).json}]`) as unknown[];
            case 'products':
              return (await listProducts(db, { limit: opts.limit, filters })).map((r) => r.product);
            case 'events':
              return (await listEvents(db, { limit: opts.limit, filters })).map((r) => r.event);
            case 'sales':
              return (await listSales(db, { limit: opts.limit, filters })).map((r) => r.sale);
            default:
              return (await listCampaigns(db, { limit: Math.min(opts.limit, 100), order: 'ascending', keys: filters.campaign_key?.split(',') })).json.map((j) => JSON.parse(j) as unknown);
          }
        };
        const records = opts.schema ? await withReplaySchema(runtime.pool, opts.schema, page) : await page(runtime.pool);
        process.stdout.write(`${JSON.stringify({ [datatype]: records, count: records.length })}\n`);
      }),
    );
}

/** `mds audit export` and `mds audit verify`. */
export function auditCommands(program: Command): void {
  const audit = program.command('audit').description("the auditors' export of the log, chained with SHA-256, and its verification");
  audit
    .command('export')
    .description('the log from --from to --to (both included) as JSON lines, each with the hash of the line before it and its own, then a line with the count and the chain head')
    .option('--from <position|time>', 'the first position (or the first event after a time)', logPoint)
    .option('--to <position|time>', 'the last position (or the last event at or before a time); the head when absent', logPoint)
    .option('--out <file>', 'write to this file (written beside it, then renamed) instead of standard output')
    .action((opts: { from?: { position: number } | { time: string }; to?: { position: number } | { time: string }; out?: string }) =>
      withRuntime(async (runtime) => {
        const head = await runtime.store.headPosition();
        const from = opts.from === undefined ? 1 : 'position' in opts.from ? Math.max(opts.from.position, 1) : (await positionAtTime(runtime.store, opts.from.time)) + 1;
        const to = opts.to === undefined ? head : Math.min(await resolvePoint(runtime, opts.to), head);
        const temp = opts.out ? `${opts.out}.partial-${process.pid}` : undefined;
        const out = temp ? fs.createWriteStream(temp) : process.stdout;
        const printer = progressPrinter();
        const started = Date.now();
        let last: Progress | undefined;
        let count = 0;
        try {
          const onProgress = (p: ExportProgress) => {
            count = p.events;
            const span = Math.max(to - from + 1, 1);
            printer.update((last = { label: 'export', position: p.position, head: to, ...rateAndEta(started, p.events, (p.position - from + 1) / span) }));
          };
          for await (const lines of exportLines(runtime.store, { from, to }, { signer: runtime.auditSigner(), onProgress })) {
            await write(out, lines);
          }
          if (temp) {
            (out as fs.WriteStream).end();
            await finished(out as fs.WriteStream);
            fs.renameSync(temp, opts.out!);
          }
        } catch (err) {
          if (temp) fs.rmSync(temp, { force: true });
          throw err;
        }
        printer.done(last);
        process.stderr.write(`exported ${count} events, positions ${from} to ${to}${opts.out ? `, to ${opts.out}` : ''}\n`);
      }),
    );
  audit
    .command('verify <file>')
    .description('check an export: every line as written, chained to the one before, the final count and head; with --public-key every signature too; names the first line that is not')
    .option('--public-key <file>', 'the service\'s audit public key (PEM, as GET /api/audit/public-key/ or `mds audit public-key` give it): checks the signed start, checkpoints and end')
    .action(async (file: string, opts: { publicKey?: string }) => {
      if (!fs.existsSync(file)) throw new InvalidArgumentError(`no file ${file}`);
      let key: ReturnType<typeof readPublicKey> | undefined;
      if (opts.publicKey !== undefined) {
        if (!fs.existsSync(opts.publicKey)) throw new InvalidArgumentError(`no file ${opts.publicKey}`);
        try {
          key = readPublicKey(fs.readFileSync(opts.publicKey, 'utf8'));
        } catch (err) {
          throw new InvalidArgumentError(`${opts.publicKey}: not an Ed25519 public key in PEM (${(err as Error).message})`);
        }
      }
      const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
      const result = await verifyExport(lines, key);
      if (!result.ok) throw new Error(`${file}: line ${result.line}: ${result.problem}`);
      const signed = key ? `; signed by key ${key.keyId}${result.checkpoints ? `, ${result.checkpoints} checkpoint(s) of the log inside` : ''}` : '; signatures not checked (give --public-key)';
      const p = result.personal;
      const kept = p.verified + p.erased + p.uncommitted > 0 ? `; personal fields: ${p.verified} line(s) as committed, ${p.erased} erased${p.uncommitted ? `, ${p.uncommitted} from before commitments` : ''}` : '';
      process.stdout.write(`${file}: ok, ${result.count} events, chain head ${result.head}${signed}${kept}\n`);
    });
  audit
    .command('public-key')
    .description('print the public key of the audit signing key (PEM), for `mds audit verify --public-key`')
    .action(() =>
      withRuntime(async (runtime) => {
        const signer = runtime.auditSigner();
        process.stdout.write(signer.publicKeyPem);
        process.stderr.write(`key id ${signer.keyId}\n`);
      }),
    );
  audit
    .command('checkpoint')
    .description('append a signed checkpoint of the audit chain to the log now (a projector does it every MDS_AUDIT_CHECKPOINT_MS)')
    .action(() =>
      withRuntime(async (runtime) => {
        const appended = await appendCheckpoint(runtime.store, runtime.auditSigner());
        process.stdout.write(appended ? `checkpoint at position ${appended.position}: ${appended.count} events, chain head ${appended.head}\n` : 'no event since the last checkpoint\n');
      }),
    );
}
