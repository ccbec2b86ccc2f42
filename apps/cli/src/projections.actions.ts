import { fixTimestampsInJson } from '#mds/platform';
import { InvalidArgumentError } from 'commander';
import { listParked, projectionStatuses, rebuildProjection, retryParked, type Projection, type ProjectionStatus, type RebuildProgress } from '#mds/projections';
import { printTable } from './args';
import { withRuntime } from './cli-context';
import { progressPrinter, type Progress } from './progress';

function projectionNamed(all: Projection[], name: string): Projection {
  const projection = all.find((p) => p.name === name);
  if (!projection) throw new InvalidArgumentError(`unknown projection "${name}"; known: ${all.map((p) => p.name).join(', ')}`);
  return projection;
}

/** A projection's status as JSON, in the API's snake_case; what is not there (no live generation, no rebuild) is null. */
const statusJson = (s: ProjectionStatus) => ({
  name: s.name,
  version: s.version,
  generation: s.generation ?? null,
  live_version: s.liveVersion ?? null,
  checkpoint: s.checkpoint,
  lag: s.lag,
  building: s.building ?? null,
});

export function listProjections(opts: { json?: boolean }): Promise<void> {
  return withRuntime(async (runtime) => {
    const statuses = await projectionStatuses(runtime.pool, runtime.store, runtime.projections);
    if (opts.json) {
      for (const s of statuses) process.stdout.write(`${JSON.stringify(statusJson(s))}\n`);
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
  });
}

export function rebuild(name: string): Promise<void> {
  return withRuntime(async (runtime) => {
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
  });
}

export function parked(name: string | undefined, opts: { json?: boolean }): Promise<void> {
  return withRuntime(async (runtime) => {
    if (name !== undefined) projectionNamed(runtime.projections, name);
    const parked = await listParked(runtime.pool, name);
    if (opts.json) {
      for (const p of parked) process.stdout.write(`${fixTimestampsInJson(JSON.stringify(p))}\n`);
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
  });
}

export function retry(name: string): Promise<void> {
  return withRuntime(async (runtime) => {
    const result = await retryParked(runtime.runnerDeps(), projectionNamed(runtime.projections, name));
    process.stdout.write(`${name}: ${result.applied} parked event(s) applied, ${result.stillParked.length} still parked\n`);
    for (const p of result.stillParked) process.stdout.write(`  position ${p.position}: ${p.error}\n`);
    if (result.stillParked.length > 0) process.exitCode = 1;
  });
}
