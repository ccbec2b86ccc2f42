import { Client, type Pool } from 'pg';
import type { EventStore, ReadAllPage, RecordedEvent } from '#mds/event-store';
import { quoteIdent, type AuditSigner, type Logger } from '#mds/platform';
import { createGeneration, dropRetiredGenerations, getGeneration, liveGeneration, pointViews, type Generation } from './catalog';
import { EventDataNeeded, NAME, type Projection, type ProjectionTx } from './projection';
import { readEventsAt } from './read-side';
import { describeFailure, isDeterministicFailure, listParked, PARK_AFTER_FAILURES, parkEvent, recordFailure, retryPause } from './parking';

export interface RunnerDeps {
  pool: Pool;
  databaseUrl: string;
  store: EventStore;
  logger?: Logger;
  batchSize: number;
  idleMs: number;
  leaseRetryMs: number;
  /** ProjectionTx.keyedHash, under the service key. */
  keyedHash?: (value: string) => string;
  /** The audit trail's signing key: a projector with it appends signed chain checkpoints (audit-anchor.ts). */
  auditSigner?: () => AuditSigner;
  /** How often; 0 or absent: never. */
  auditCheckpointMs?: number;
}

/** How long a projection's checkpoint may trail reads past events it does not take. */
const EMPTY_CHECKPOINT_MS = 100;

/** Advisory-lock namespace of projection leases ("mds" in ASCII). */
export const LEASE_NAMESPACE = 0x6d6473;

export function openDedicatedClient(deps: Pick<RunnerDeps, 'databaseUrl' | 'logger'>, role: string, options: { derivedState?: boolean } = {}): Promise<Client> {
  const client = new Client({ connectionString: deps.databaseUrl, application_name: `mds-${role}` });
  client.on('error', (err) => deps.logger?.warn({ err: err.message, role }, 'dedicated connection failed'));
  return client.connect().then(async () => {
    // A lease is held by this connection. Were its process to die mid-statement, PostgreSQL would end
    // the backend, and free the lease, only when the statement ended. Checked every second while a
    // statement runs, it ends within about a second. PostgreSQL 13 and older refuse the setting and
    // keep their behaviour.
    await client.query('SET client_connection_check_interval = 1000').catch(() => undefined);
    // Read models are derived from the durable log and commit their checkpoint with their rows, so a
    // crash can only lose a last few projected pages as a whole, which are then applied again: their
    // commits need not wait for a WAL flush.
    // Import projections stage each page (some 20,000 records) in temporary tables and sort it:
    // room for that in memory instead of spilling to temporary files.
    if (options.derivedState) await client.query(`SET synchronous_commit = off; SET temp_buffers = '64MB'; SET work_mem = '32MB'`);
    return client;
  });
}

export async function tryLease(client: Client, key: string): Promise<boolean> {
  const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [LEASE_NAMESPACE, key]);
  return rows[0].ok;
}

export async function releaseLease(client: Client, key: string): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LEASE_NAMESPACE, key]);
}

/**
 * Applies one page to a generation and moves its checkpoint in the same transaction. The checkpoint
 * update is a compare-and-set on the checkpoint the page was read after: if anyone else moved it, or
 * the generation was retired by a switch, nothing is committed and the caller reloads.
 */
export async function applyPage(
  client: Client,
  projection: Projection,
  gen: Generation,
  page: ReadAllPage,
  signal?: AbortSignal,
  keyedHash?: RunnerDeps['keyedHash'],
  store?: EventStore,
): Promise<boolean> {
  const move = moveCheckpointCall(projection, gen, page.position);
  try {
    if (page.events.length === 0) {
      // Nothing of this projection's in the page: only the checkpoint moves, in one round trip.
      await client.query(move);
    } else {
      try {
        // The generation is held (not retired, not dropped) until the commit: see mds_hold_generation.
        await client.query(`BEGIN; SET LOCAL search_path = ${quoteIdent(gen.schemaName)}, public; ${holdGenerationCall(projection, gen)}`);
        await projection.apply(page.events, { query: client.query.bind(client) as never, schema: gen.schemaName, position: page.position, signal, keyedHash, readAt: readerOf(store) });
        // The personal-data check, the compare-and-set and COMMIT in one round trip.
        await client.query(`${personalEpochCheck(page.personalEpoch)}${move}; COMMIT`);
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw personalDataError(err);
      }
    }
  } catch (err) {
    if ((err as { code?: string }).code === CHECKPOINT_MOVED) return false;
    throw err;
  }
  gen.checkpoint = page.position;
  return true;
}

/** ProjectionTx.readAt over the log. */
export const readerOf = (store?: EventStore): ProjectionTx['readAt'] => (store ? (positions) => readEventsAt(store, positions) : undefined);

/** A forgetting rewrote personal data after the page was read: what was built from it is not committed. */
export class PersonalDataChanged extends Error {
  constructor() {
    super('personal data was forgotten while the page was applied; reading it again');
  }
}

/** SQLSTATE of mds_assert_personal_epoch when a forgetting rewrote personal data after the page was read. */
const PERSONAL_DATA_CHANGED = 'MDSPD';

/**
 * Before committing what was built from a page holding personal fields: no forgetting has rewritten
 * them since the page was read, as a statement that fails (PERSONAL_DATA_CHANGED) so it can go with
 * the commit; nothing when the page holds none. It holds the personal-data lock shared until the
 * commit, so a forgetting that starts now waits for this transaction and then sees its rows.
 */
function personalEpochCheck(epoch: number | undefined): string {
  if (epoch === undefined) return '';
  if (!Number.isSafeInteger(epoch)) throw new Error(`not a personal-data epoch: ${epoch}`);
  return `SELECT mds_assert_personal_epoch(${epoch}); `;
}

/** PersonalDataChanged for the check's failure, any other error as it is. */
const personalDataError = (err: unknown): unknown => ((err as { code?: string }).code === PERSONAL_DATA_CHANGED ? new PersonalDataChanged() : err);

/** The check of personalEpochCheck on its own. */
async function assertPersonalDataUnchanged(client: Client, epoch: number | undefined): Promise<void> {
  if (epoch !== undefined) await client.query(personalEpochCheck(epoch)).catch((err: unknown) => Promise.reject(personalDataError(err)));
}

/** SQLSTATE of mds_move_checkpoint when the checkpoint was not where the page was read from. */
const CHECKPOINT_MOVED = 'MDSCP';

/**
 * The checkpoint's compare-and-set (and its notification, delivered at commit) as a statement with
 * literals, so it can share a query with COMMIT (a multi-statement query takes no parameters): the
 * name is snake_case (assertValidProjection), the rest are integers.
 */
function moveCheckpointCall(projection: Projection, gen: Generation, to: number): string {
  const ints = [gen.generation, gen.checkpoint, to];
  if (!NAME.test(projection.name) || !ints.every(Number.isSafeInteger)) throw new Error(`cannot move checkpoint of ${projection.name} to ${to}`);
  return `SELECT mds_move_checkpoint('${projection.name}', ${ints.join(', ')})`;
}

function holdGenerationCall(projection: Projection, gen: Generation): string {
  if (!NAME.test(projection.name) || !Number.isSafeInteger(gen.generation)) throw new Error(`cannot hold generation ${gen.generation} of ${projection.name}`);
  return `SELECT mds_hold_generation('${projection.name}', ${gen.generation})`;
}

/** How many events a runner reads at most per page of `projection`. */
const pageLimit = (projection: Projection, runnerLimit: number) => Math.min(runnerLimit, projection.batchSize ?? runnerLimit);

export function readPage(store: EventStore, projection: Projection, after: number, runnerLimit: number, allData = false): Promise<ReadAllPage> {
  const limit = pageLimit(projection, runnerLimit);
  const filter = projection.eventTypes || projection.streamPrefixes ? { types: projection.eventTypes, streamPrefixes: projection.streamPrefixes } : undefined;
  // Reading with all data (a projection needed data it was not given): none is left in the log either.
  return store.readAll({ after, limit, filter, withDataOf: allData ? undefined : projection.dataTypes, rawDataOf: projection.logDataTypes, inLogOf: allData ? undefined : projection.logDataTypes });
}

/**
 * Reads the page after the generation's checkpoint and applies it. A projection that finds it needs
 * data it was read without (EventDataNeeded) gets the page again with all data, and from then on
 * (`state.allData`) every page.
 */
async function readAndApply(
  client: Client,
  deps: Pick<RunnerDeps, 'store' | 'batchSize' | 'keyedHash' | 'pool' | 'logger'>,
  projection: Projection,
  gen: Generation,
  state: { allData: boolean },
  page?: ReadAllPage,
  signal?: AbortSignal,
): Promise<{ page: ReadAllPage; applied: boolean }> {
  page ??= await readPage(deps.store, projection, gen.checkpoint, deps.batchSize, state.allData);
  let failures = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return { page, applied: await applyPage(client, projection, gen, page, signal, deps.keyedHash, deps.store) };
    } catch (err) {
      if (err instanceof EventDataNeeded && !state.allData) state.allData = true;
      else if (err instanceof PersonalDataChanged && attempt < 20) {
        // read again below
      } else if (isDeterministicFailure(err) && !signal?.aborted) {
        failures++;
        await recordFailure(deps.pool, projection, gen, err);
        deps.logger?.warn({ projection: projection.name, position: page.position, attempt: failures, err: describeFailure(err) }, 'projection failed to apply a page');
        if (failures >= PARK_AFTER_FAILURES) return { page, applied: await applyOneByOne(client, deps, projection, gen, state, page, signal) };
        await pause(retryPause(failures), signal);
      } else throw err;
      page = await readPage(deps.store, projection, gen.checkpoint, deps.batchSize, state.allData);
    }
  }
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * A page that failed PARK_AFTER_FAILURES times: its events are applied one at a time, each with its
 * own checkpoint move, and one that fails again for the same kind of reason is parked (recorded with
 * the error, the checkpoint moved past it in the same transaction), so the projection goes on.
 */
async function applyOneByOne(
  client: Client,
  deps: Pick<RunnerDeps, 'store' | 'keyedHash' | 'pool' | 'logger'>,
  projection: Projection,
  gen: Generation,
  state: { allData: boolean },
  page: ReadAllPage,
  signal?: AbortSignal,
): Promise<boolean> {
  for (const event of page.events) {
    if (event.position <= gen.checkpoint) continue;
    const single: ReadAllPage = { events: [event], position: event.position, personalEpoch: page.personalEpoch };
    for (let attempt = 1; ; attempt++) {
      try {
        if (!(await applyPage(client, projection, gen, single, signal, deps.keyedHash, deps.store))) return false;
        break;
      } catch (err) {
        // Read again with all data from the checkpoint: the caller's next page starts past what was applied.
        if (err instanceof EventDataNeeded && !state.allData) {
          state.allData = true;
          return true;
        }
        if (err instanceof PersonalDataChanged && attempt < 20) return true;
        if (!isDeterministicFailure(err) || signal?.aborted) throw err;
        if (!(await parkAndPass(client, projection, gen, event, err))) return false;
        deps.logger?.error(
          { projection: projection.name, generation: gen.generation, position: event.position, stream: event.stream, type: event.type, err: describeFailure(err) },
          'event parked: the projection could not apply it and went on (mds projections parked)',
        );
        break;
      }
    }
  }
  if (page.position > gen.checkpoint) return applyPage(client, projection, gen, { events: [], position: page.position });
  return true;
}

/** Parks the event and moves the checkpoint past it, in one transaction; false when the checkpoint had moved. */
async function parkAndPass(client: Client, projection: Projection, gen: Generation, event: RecordedEvent, err: unknown): Promise<boolean> {
  try {
    await client.query('BEGIN');
    await parkEvent(client, projection, gen, event, err, PARK_AFTER_FAILURES + 1);
    await client.query(`${moveCheckpointCall(projection, gen, event.position)}; COMMIT`);
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    if ((e as { code?: string }).code === CHECKPOINT_MOVED) return false;
    throw e;
  }
  gen.checkpoint = event.position;
  return true;
}

export interface RebuildProgress {
  projection: string;
  generation: number;
  position: number;
  head: number;
  events: number;
  eventsPerSecond: number;
  etaSeconds: number | undefined;
}

/**
 * Seconds a rebuild still needs, from how fast its checkpoint moves through the log's positions, not
 * from the events it takes: a projection of a few types takes few of the positions it passes (events
 * per second over positions left said 01:38 for a 6 s job).
 */
export function rebuildEta(seconds: number, position: number, head: number): number | undefined {
  const perSecond = position / Math.max(seconds, 0.001);
  return perSecond > 0 ? Math.max(head - position, 0) / perSecond : undefined;
}

export interface RebuildResult {
  generation: number;
  retired?: number;
  events: number;
  seconds: number;
}

/**
 * Blue/green rebuild: builds a new generation from position 0 in its own schema while the live one
 * keeps serving and applying, then switches the views in one transaction that first locks the live
 * generation's row (its runner cannot commit meanwhile) and applies whatever the new one still lacks.
 */
export async function rebuildProjection(
  deps: RunnerDeps,
  projection: Projection,
  options: { onProgress?: (p: RebuildProgress) => void; signal?: AbortSignal } = {},
): Promise<RebuildResult> {
  const started = Date.now();
  const client = await openDedicatedClient(deps, `rebuild-${projection.name}`, { derivedState: true });
  const buildLease = `${projection.name}#build`;
  try {
    if (!(await tryLease(client, buildLease))) throw new Error(`a rebuild of ${projection.name} is already running`);
    // Holding the build lease, any generation still 'building' was left by a rebuild that died.
    await deps.pool.query(`UPDATE mds_projections SET state = 'retired' WHERE name = $1 AND state = 'building'`, [projection.name]);
    await dropRetiredGenerations(deps.pool, projection.name);
    const gen = await createGeneration(deps.pool, projection);
    if (gen.state === 'live') {
      // Nothing was serving: the new generation is live at once and its runner fills it.
      return { generation: gen.generation, events: 0, seconds: (Date.now() - started) / 1000 };
    }
    let events = 0;
    const data = { allData: false };
    let head = await deps.store.headPosition();
    let lastReport = 0;
    const report = (force = false) => {
      const now = Date.now();
      if (!options.onProgress || (!force && now - lastReport < 250)) return;
      lastReport = now;
      const seconds = Math.max((now - started) / 1000, 0.001);
      options.onProgress({
        projection: projection.name,
        generation: gen.generation,
        position: gen.checkpoint,
        head,
        events,
        eventsPerSecond: events / seconds,
        etaSeconds: rebuildEta(seconds, gen.checkpoint, head),
      });
    };
    // The next page is read (through the pool, on another connection) while this one is applied:
    // reading and applying then use both cores. A read-ahead is used only if it starts where the
    // applied page ended and was read with the data the projection turned out to need.
    let ahead: { after: number; allData: boolean; page: Promise<ReadAllPage> } | undefined;
    const readAhead = (after: number) => {
      const page = readPage(deps.store, projection, after, deps.batchSize, data.allData);
      page.catch(() => undefined); // awaited only if used
      ahead = { after, allData: data.allData, page };
    };
    for (;;) {
      if (options.signal?.aborted) throw new Error('rebuild aborted');
      const usable = ahead && ahead.after === gen.checkpoint && ahead.allData === data.allData;
      let read = usable ? await ahead!.page : undefined;
      ahead = undefined;
      // A read-ahead that found nothing new may predate the latest appends: only a fresh read says caught up.
      if (!read || read.position === gen.checkpoint) read = await readPage(deps.store, projection, gen.checkpoint, deps.batchSize, data.allData);
      if (read.position === gen.checkpoint) break;
      if (read.events.length > 0) readAhead(read.position);
      const { page, applied } = await readAndApply(client, deps, projection, gen, data, read, options.signal);
      if (!applied) throw new Error(`generation ${gen.generation} of ${projection.name} was changed by another process`);
      events += page.events.length;
      if (gen.checkpoint >= head) head = await deps.store.headPosition();
      report();
      if (page.events.length < deps.batchSize && gen.checkpoint >= head) break;
    }
    // A forgetting during the catch-up inside the switch, or readers in the way of its views: the
    // switch is tried again (nothing of it stayed). Readers may hold a view for long (an export), so
    // that wait has no limit but the signal.
    let retired: number | undefined;
    for (let attempt = 1, busy = 0; ; attempt++) {
      try {
        retired = await switchTo(client, deps, projection, gen, options.signal);
        break;
      } catch (err) {
        if (err instanceof ViewsBusy && !options.signal?.aborted) {
          if (++busy % 50 === 0) deps.logger?.info({ projection: projection.name, attempts: busy }, 'projection switch waiting for readers of its views');
          await pause(Math.min(1000, 20 * busy), options.signal);
          continue;
        }
        if (!(err instanceof PersonalDataChanged) || attempt >= 20) throw err;
      }
    }
    // The switch caught up under its lock, past the head read before it: that is the head now.
    head = Math.max(head, gen.checkpoint);
    report(true);
    await dropRetiredGenerations(deps.pool, projection.name);
    return { generation: gen.generation, retired, events, seconds: (Date.now() - started) / 1000 };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** How long a switch waits for the readers of a view it replaces before it rolls back and tries again. */
const VIEW_LOCK_TIMEOUT_MS = 100;
/** SQLSTATE of a lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

/** The switch met readers holding its views; nothing of it was committed. */
class ViewsBusy extends Error {
  constructor() {
    super('readers hold the views the switch replaces');
  }
}

async function switchTo(client: Client, deps: RunnerDeps, projection: Projection, gen: Generation, signal?: AbortSignal): Promise<number | undefined> {
  await client.query('BEGIN');
  try {
    const live = await liveGeneration(client as never, projection.name, true);
    await client.query(`SET LOCAL search_path = ${quoteIdent(gen.schemaName)}, public`);
    let checkpoint = gen.checkpoint;
    let epoch: number | undefined;
    while (live && checkpoint < live.checkpoint) {
      const page = await readPage(deps.store, projection, checkpoint, deps.batchSize, true);
      if (page.position === checkpoint) break;
      epoch ??= page.personalEpoch;
      if (page.events.length > 0) await applyInSwitch(client, deps, projection, gen, page, signal);
      checkpoint = page.position;
    }
    await assertPersonalDataUnchanged(client, epoch);
    if (live) await client.query(`UPDATE mds_projections SET state = 'retired', updated_at = now() WHERE name = $1 AND generation = $2`, [projection.name, live.generation]);
    const moved = await client.query(
      `UPDATE mds_projections SET state = 'live', checkpoint = $3, updated_at = now() WHERE name = $1 AND generation = $2 AND state = 'building'`,
      [projection.name, gen.generation, checkpoint],
    );
    if (moved.rowCount !== 1) throw new Error(`generation ${gen.generation} of ${projection.name} is no longer building`);
    // A reader holding one view while it waits for another the switch has dropped (a join, read in
    // its own order) would deadlock with it: the switch waits a short while only, well under
    // deadlock_timeout, then lets the readers go first and tries again.
    await client.query(`SET LOCAL lock_timeout = '${VIEW_LOCK_TIMEOUT_MS}ms'`);
    await pointViews(client as never, projection, gen.schemaName).catch((err: unknown) => Promise.reject((err as { code?: string }).code === LOCK_NOT_AVAILABLE ? new ViewsBusy() : err));
    await client.query(`SET LOCAL lock_timeout = 0`);
    await client.query(`SELECT pg_notify('mds_checkpoints', $1)`, [`${projection.name}:${checkpoint}`]);
    await client.query('COMMIT');
    gen.checkpoint = checkpoint;
    gen.state = 'live';
    deps.logger?.info({ projection: projection.name, generation: gen.generation, retired: live?.generation, checkpoint }, 'projection switched to new generation');
    return live?.generation;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * A page of the switch's catch-up, inside its transaction: a page that fails is applied again event
 * by event under savepoints, and an event that fails alone is parked (the switch holds the live
 * generation's lock, so there is no waiting and trying again here).
 */
async function applyInSwitch(client: Client, deps: RunnerDeps, projection: Projection, gen: Generation, page: ReadAllPage, signal?: AbortSignal): Promise<void> {
  const apply = (events: RecordedEvent[], position: number) =>
    projection.apply(events, { query: client.query.bind(client) as never, schema: gen.schemaName, position, signal, keyedHash: deps.keyedHash, readAt: readerOf(deps.store) });
  await client.query('SAVEPOINT page');
  try {
    await apply(page.events, page.position);
    await client.query('RELEASE SAVEPOINT page');
    return;
  } catch (err) {
    if (!isDeterministicFailure(err)) throw err;
    await client.query('ROLLBACK TO SAVEPOINT page');
  }
  for (const event of page.events) {
    await client.query('SAVEPOINT one');
    try {
      await apply([event], event.position);
      await client.query('RELEASE SAVEPOINT one');
    } catch (err) {
      if (!isDeterministicFailure(err)) throw err;
      await client.query('ROLLBACK TO SAVEPOINT one');
      await parkEvent(client, projection, gen, event, err, 1);
      deps.logger?.error({ projection: projection.name, generation: gen.generation, position: event.position, err: describeFailure(err) }, 'event parked during a switch');
    }
  }
}

/**
 * Runs one projection in a projector process: takes the projection's lease (a session advisory
 * lock; other projectors stand by and retry), then applies the live generation batch by batch on
 * the lease's own connection, so losing the connection also loses the lease.
 */
export class ProjectionWorker {
  private stopped = false;
  private readonly abort = new AbortController();
  private client?: Client;
  private done?: Promise<void>;
  /** Set once the projection needed data it was read without: every page is read with all data. */
  private readonly data = { allData: false };
  /** The generation being applied, for recording its failures. */
  private generation?: number;
  leaseHeld = false;

  constructor(
    private readonly deps: RunnerDeps,
    private readonly projection: Projection,
  ) {}

  start(): void {
    this.done = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.done;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      // The listener goes with the timer: a standby projector sleeps every lease retry, for days.
      const done = () => {
        clearTimeout(t);
        this.abort.signal.removeEventListener('abort', done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.abort.signal.addEventListener('abort', done, { once: true });
    });
  }

  private async loop(): Promise<void> {
    const log = this.deps.logger?.child({ projection: this.projection.name });
    while (!this.stopped) {
      try {
        this.client = await openDedicatedClient(this.deps, `projector-${this.projection.name}`, { derivedState: true });
        while (!this.stopped && !(await tryLease(this.client, this.projection.name))) await this.sleep(this.deps.leaseRetryMs);
        if (this.stopped) break;
        this.leaseHeld = true;
        log?.info('projection lease acquired');
        await this.runLive(log);
      } catch (err) {
        if (!this.stopped) {
          if (this.generation !== undefined) await recordFailure(this.deps.pool, this.projection, { generation: this.generation }, err);
          log?.error({ err: describeFailure(err) }, 'projection runner failed; restarting');
          await this.sleep(1000);
        }
      } finally {
        this.leaseHeld = false;
        await this.client?.end().catch(() => undefined);
        this.client = undefined;
      }
    }
  }

  private async runLive(log?: Logger): Promise<void> {
    const client = this.client!;
    let rebuilding: Promise<unknown> | undefined;
    while (!this.stopped) {
      // The first generation of a projection goes live as it is created.
      // Another process (an API start, a projector) may be creating it at this moment: only-if-none.
      const gen = (await liveGeneration(this.deps.pool, this.projection.name)) ?? (await createGeneration(this.deps.pool, this.projection, { onlyIfNone: true }));
      this.generation = gen.generation;
      if (gen.version > this.projection.version) {
        // A newer release already serves this projection (a rolling deploy): applying older logic
        // to its tables would corrupt them, so this process stands by until it is replaced.
        log?.warn({ live: gen.version, code: this.projection.version }, 'live projection is newer than this code; standing by');
        await this.sleep(this.deps.leaseRetryMs * 5);
        continue;
      }
      if (gen.version < this.projection.version && !rebuilding) {
        log?.info({ from: gen.version, to: this.projection.version }, 'projection version changed: rebuilding beside the live generation');
        rebuilding = rebuildProjection(this.deps, this.projection, { signal: this.abort.signal }).catch((err) => {
          if (!this.stopped) log?.error({ err: (err as Error).message }, 'automatic rebuild failed');
        });
      }
      // Runs the generation until it is retired by a switch (or the worker stops). Pages with none of
      // the projection's events move only the read cursor; the checkpoint follows at most every
      // EMPTY_CHECKPOINT_MS (or with the next page that has events), so a stream of appends this
      // projection ignores does not cost it a write each.
      let cursor = gen.checkpoint;
      let persistedAt = Date.now();
      let read = true;
      const limit = pageLimit(this.projection, this.deps.batchSize);
      while (!this.stopped) {
        if (read) {
          const page = await readPage(this.deps.store, this.projection, cursor, this.deps.batchSize, this.data.allData);
          if (page.position !== cursor) {
            // A page short of the limit looked as far as the log's head: the wait below tells whether
            // anything came since (it returns at once if so), without a read that finds nothing.
            read = page.events.length >= limit;
            if (page.events.length === 0 && Date.now() - persistedAt < EMPTY_CHECKPOINT_MS) {
              cursor = page.position;
              continue;
            }
            // The page was read from the cursor, which may be past the checkpoint by empty pages only.
            if (!(await readAndApply(client, this.deps, this.projection, gen, this.data, page, this.abort.signal)).applied) break;
            cursor = gen.checkpoint;
            persistedAt = Date.now();
            continue;
          }
        }
        // Caught up with what is known: persist a trailing cursor when due, then wait.
        const due = persistedAt + EMPTY_CHECKPOINT_MS - Date.now();
        if (cursor > gen.checkpoint && due <= 0) {
          if (!(await applyPage(client, this.projection, gen, { events: [], position: cursor }))) break;
          persistedAt = Date.now();
        }
        const idle = cursor === gen.checkpoint;
        const timeout = idle ? this.deps.idleMs : Math.max(due, 1);
        const types = this.projection.eventTypes;
        if (types && this.deps.store.waitForTypes) {
          // Appends of other types move the cursor without a read.
          const woke = await this.deps.store.waitForTypes(cursor, types, timeout, this.abort.signal);
          // An idle wait that heard nothing reads anyway (a safety net for lost announcements).
          read = woke.read || (idle && woke.skipTo === cursor);
          cursor = Math.max(cursor, woke.skipTo);
        } else {
          await this.deps.store.waitForAppend(cursor, timeout, this.abort.signal);
          read = true;
        }
      }
    }
    await rebuilding;
  }
}

export interface ProjectionStatus {
  name: string;
  version: number;
  generation?: number;
  liveVersion?: number;
  checkpoint: number;
  lag: number;
  building?: { generation: number; version: number; checkpoint: number };
}

export interface RetryResult {
  applied: number;
  stillParked: Array<{ position: number; error: string }>;
}

/**
 * Applies the projection's parked events again (after an upgrade that fixed what failed), oldest
 * first, each in a transaction that holds the generation's row so its runner waits meanwhile; one
 * applied leaves the list. They are applied over the read model as it stands now, after events that
 * came later in the log: where their order matters, a rebuild gives the read model a clean run gives.
 */
export async function retryParked(deps: RunnerDeps, projection: Projection): Promise<RetryResult> {
  const client = await openDedicatedClient(deps, `retry-${projection.name}`, { derivedState: true });
  const result: RetryResult = { applied: 0, stillParked: [] };
  try {
    for (const parked of await listParked(deps.pool, projection.name)) {
      const gen = await getGeneration(deps.pool, projection.name, parked.generation);
      const event = (await readEventsAt(deps.store, [parked.position])).get(parked.position);
      if (!gen || gen.state === 'retired') continue;
      try {
        if (!event) throw new Error(`no event at position ${parked.position} in the log`);
        await client.query(`BEGIN; SET LOCAL search_path = ${quoteIdent(gen.schemaName)}, public`);
        await client.query(`SELECT 1 FROM mds_projections WHERE name = $1 AND generation = $2 AND state <> 'retired' FOR UPDATE`, [projection.name, gen.generation]);
        await projection.apply([event], { query: client.query.bind(client) as never, schema: gen.schemaName, position: parked.position, keyedHash: deps.keyedHash, readAt: readerOf(deps.store) });
        await client.query('DELETE FROM mds_parked_events WHERE projection = $1 AND generation = $2 AND position = $3', [projection.name, gen.generation, parked.position]);
        await client.query('COMMIT');
        result.applied++;
        deps.logger?.info({ projection: projection.name, position: parked.position }, 'parked event applied');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        const error = describeFailure(err);
        await deps.pool.query(
          `UPDATE mds_parked_events SET attempts = attempts + 1, error = $4, retried_at = now() WHERE projection = $1 AND generation = $2 AND position = $3`,
          [projection.name, gen.generation, parked.position, error],
        );
        result.stillParked.push({ position: parked.position, error });
      }
    }
    return result;
  } finally {
    await client.end().catch(() => undefined);
  }
}
