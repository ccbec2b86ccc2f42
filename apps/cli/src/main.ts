#!/usr/bin/env node
import 'reflect-metadata';
import { Command, InvalidArgumentError } from 'commander';
import { createLogger, loadConfig } from '../../../libs/platform/src';
import { openRuntime, type Runtime } from '../../../libs/runtime/src';
import { projectionStatuses, rebuildProjection, type RebuildProgress } from '../../../projections';
import { progressPrinter } from './progress';
import { serve } from './serve';

async function withRuntime<T>(fn: (runtime: Runtime) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const runtime = await openRuntime(config, { logger: createLogger(process.env.LOG_LEVEL ?? 'warn'), role: 'cli', poolSize: 4 });
  try {
    return await fn(runtime);
  } finally {
    await runtime.close();
  }
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number >= 0');
  return n;
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
        const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
        for (const r of rows) process.stdout.write(`${r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()}\n`);
      }),
    );
  projections
    .command('rebuild <name>')
    .description('rebuild from position 0 beside the serving tables, then switch (blue/green)')
    .action((name: string) =>
      withRuntime(async (runtime) => {
        const projection = runtime.projections.find((p) => p.name === name);
        if (!projection) {
          throw new InvalidArgumentError(`unknown projection "${name}"; known: ${runtime.projections.map((p) => p.name).join(', ')}`);
        }
        const printer = progressPrinter();
        let last: RebuildProgress | undefined;
        const result = await rebuildProjection(runtime.runnerDeps(), projection, { onProgress: (p) => printer.update((last = p)) });
        printer.done(last);
        process.stdout.write(
          `rebuilt ${name}: generation ${result.generation} is live${result.retired ? ` (generation ${result.retired} retired)` : ''}; ` +
            `${result.events} events in ${result.seconds.toFixed(1)} s (${Math.round(result.events / Math.max(result.seconds, 0.001))} events/s)\n`,
        );
      }),
    );

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
            await write(`${JSON.stringify(e)}\n`);
            remaining--;
          }
          return;
        }
        let after = Math.max(opts.from - 1, 0);
        while (remaining > 0) {
          const page = await runtime.store.readAll({ after, limit: Math.min(1000, remaining), filter: opts.type ? { types: opts.type } : undefined });
          for (const e of page.events) await write(`${JSON.stringify(e)}\n`);
          remaining -= page.events.length;
          if (page.position === after) break;
          after = page.position;
        }
      }),
    );
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
