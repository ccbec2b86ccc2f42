import { maskSealed } from '#mds/platform';
import { positionAtTime, replayInto } from '#mds/projections';
import type { Runtime } from '#mds/runtime';
import type { LogPoint } from './args';
import { withRuntime } from './cli-context';
import { progressPrinter, type Progress } from './progress';

export async function resolvePoint(runtime: Runtime, point: LogPoint): Promise<number> {
  return 'position' in point ? point.position : positionAtTime(runtime.store, point.time);
}

export function readEvents(opts: { from: number; stream?: string; type?: string[]; limit?: number }): Promise<void> {
  return withRuntime(async (runtime) => {
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
  });
}

export function replay(opts: { until: LogPoint; into: string; replace?: boolean }): Promise<void> {
  return withRuntime(async (runtime) => {
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
  });
}
