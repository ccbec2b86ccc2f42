import { importStream, readRun, type RunStatus } from '#mds/imports';
import { liveGeneration } from '../runtime/catalog';
import type { ReadDeps } from '../runtime/read-side';
import { waitForProjection } from '../runtime/consistency';

/** The read models each kind of import run feeds (a run is `completed` once all of them have passed it). */
export const IMPORT_PROJECTIONS: Record<string, string[]> = {
  shops: ['shops'],
  customers: ['customers'],
  products: ['products'],
  // Events change customers (subscriptions) and may create products (linking); sales may create products.
  events: ['events', 'customers', 'products'],
  sales: ['sales', 'products'],
  // A campaign run is complete once the statistics include it.
  campaigns: ['campaigns'],
  campaign_events: ['campaigns'],
};

/** The read models a bulk update of each datatype changes. */
export const QUERY_PROJECTIONS: Record<string, string[]> = { customers: ['customers'], products: ['products'], events: ['events'], sales: ['sales'] };

/**
 * An import run or bulk update as `GET /api/runs/{id}/` shows it: its header comes from the log (so a
 * run is known the moment its append is answered), its state from the checkpoints of the read
 * models it feeds. Undefined for an unknown run.
 */
export async function runStatus(read: ReadDeps, runId: string): Promise<RunStatus | undefined> {
  const run = await readRun(read.store, runId);
  if (!run) return undefined;
  const fed = run.header.query ? QUERY_PROJECTIONS[run.header.query.datatype] : IMPORT_PROJECTIONS[run.header.kind];
  const lives = await Promise.all((fed ?? []).map((p) => liveGeneration(read.pool, p)));
  const passed = lives.length > 0 && lives.every((l) => l !== undefined && l.checkpoint >= run.lastPosition);
  // Passed, but a read model parked an event of the run: the run ends failed, saying which and why.
  const parked = passed ? await parkedOfRun(read, runId, fed ?? []) : [];
  const { header } = run;
  return {
    run_id: header.run_id,
    kind: header.kind,
    state: !passed ? 'scheduled' : parked.length > 0 ? 'failed' : 'completed',
    ...(parked.length > 0
      ? {
          reason:
            parked.map((p) => `the ${p.projection} read model could not apply the event at log position ${p.position} (${p.type}): ${p.error}`).join('; ') +
            '. Its records are in the log; an operator applies them again with `mds projections retry` once the cause is fixed.',
        }
      : {}),
    received: header.received,
    accepted: header.accepted,
    rejected: header.rejected,
    errors: header.errors,
    warnings: header.warnings ?? [],
    created_at: header.created_at,
    // The projection's checkpoint time is when it passed the run (or later): an upper bound.
    completed_at: passed ? lives.map((l) => l!.updatedAt).sort().at(-1)! : null,
    log_position: passed ? run.lastPosition : null,
  };
}

async function parkedOfRun(read: ReadDeps, runId: string, fed: string[]) {
  const { rows } = await read.pool.query<{ projection: string; position: string; type: string; error: string }>(
    `SELECT p.projection, p.position, p.type, p.error FROM mds_parked_events p
       JOIN mds_projections g ON g.name = p.projection AND g.generation = p.generation AND g.state = 'live'
      WHERE p.stream = $1 AND p.projection = ANY ($2::text[]) ORDER BY p.position, p.projection`,
    [importStream(runId), fed],
  );
  return rows;
}

/** The longest a client may wait for a run to end in one request (GET /api/runs/{id}/?wait=). */
export const MAX_RUN_WAIT_SECONDS = 30;

/**
 * A run's status once it has ended (completed or failed) or `timeoutMs` has passed, whichever comes
 * first: a long poll. Wakes on the read models' checkpoint notifications, polls as a fallback.
 */
export async function waitForRun(read: ReadDeps, runId: string, timeoutMs: number): Promise<RunStatus | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await runStatus(read, runId);
    const remaining = deadline - Date.now();
    if (!status || status.state !== 'scheduled' || remaining <= 0) return status;
    const run = await readRun(read.store, runId);
    const fed = run!.header.query ? QUERY_PROJECTIONS[run!.header.query.datatype] : IMPORT_PROJECTIONS[run!.header.kind];
    const behind = (await Promise.all((fed ?? []).map(async (p) => ((await liveGeneration(read.pool, p))?.checkpoint ?? 0) < run!.lastPosition ? p : undefined))).find(Boolean);
    if (!behind) {
      await new Promise((r) => setTimeout(r, Math.min(100, remaining)));
      continue;
    }
    await waitForProjection(read.pool, behind, run!.lastPosition, { timeoutMs: remaining, notifications: read.notifications }).catch(() => undefined);
  }
}
