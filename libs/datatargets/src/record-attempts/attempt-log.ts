import { WrongExpectedRevisionError, type EventStore, type NewEvent } from '#mds/event-store';
import { outletStateOf } from '../datatarget.decider';
import { outletStream, type OutletState } from '../datatarget.events';

/** An event of an outlet's stream as the worker makes it (a delivery attempt, or a pause after failing too long). */
export type OutletStreamEvent = NewEvent;

/** Attempts sent but not yet appended, at most: they are what a worker killed mid-delivery sends again. */
export const MAX_UNRECORDED_BATCHES = 16;

/**
 * How attempts are grouped into appends: an append starts once `group` attempts wait, or `lingerMs`
 * after the first of them, whichever comes first (and at once on drain, or when room is wanted).
 * Each append wakes every projection that follows outlet streams, so fewer, larger appends are what
 * keeps recording cheap while batches go out back to back; a lone attempt waits at most `lingerMs`.
 */
export interface AttemptGrouping {
  group: number;
  lingerMs: number;
}

/**
 * Measured with `npm run bench`'s scenario 6 at 100,000 messages, in two runs each: groups of 1, 4,
 * 8, 16 and 32 delivered at 0.34–0.35, 0.35–0.38, 0.41–0.45, 0.51–0.56 and 0.55–0.56 of the loop that
 * records each attempt with one INSERT. Sixteen keeps what a killed worker sends again small.
 */
export const ATTEMPT_GROUPING: AttemptGrouping = { group: 16, lingerMs: 10 };

/**
 * An outlet's attempts on their way into its stream: appended in the order they were made, in groups
 * (`AttemptGrouping`), one append in flight at a time, each at the revision the previous one left.
 * When an append finds the stream moved (an operator's control, another owner), the log is
 * `conflicted` and drops what it holds: those batches are sent again after the state is read anew.
 * Any other append error is thrown by the next `drain` or `roomFor`.
 */
export class AttemptLog {
  private waiting: Array<{ events: NewEvent[]; delivered: number }> = [];
  private writing?: Promise<void>;
  private inFlight = 0;
  private failure?: unknown;
  private linger?: NodeJS.Timeout;
  conflicted = false;

  constructor(
    private readonly store: EventStore,
    private readonly stream: string,
    private revision: number | 'no_stream',
    private readonly onRecorded: (delivered: number) => void,
    private readonly grouping: AttemptGrouping = ATTEMPT_GROUPING,
  ) {}

  /** Attempts sent and not yet appended. */
  get unrecorded(): number {
    return this.waiting.length + this.inFlight;
  }

  add(events: NewEvent[], delivered: number): void {
    this.waiting.push({ events, delivered });
    this.write(false);
  }

  /** Waits until fewer than `max` attempts are unrecorded (or the log conflicted). */
  async roomFor(max: number): Promise<void> {
    while (this.unrecorded >= max) {
      this.write(true);
      if (!this.writing) break;
      await this.writing;
    }
    if (this.failure) throw this.failure;
  }

  /** Waits until every attempt is appended; false when the log conflicted instead. */
  async drain(): Promise<boolean> {
    for (;;) {
      this.write(true);
      if (!this.writing) break;
      await this.writing;
    }
    if (this.failure) throw this.failure;
    return !this.conflicted;
  }

  private write(now: boolean): void {
    if (this.writing || this.conflicted || this.failure || this.waiting.length === 0) return;
    if (!now && this.waiting.length < this.grouping.group) {
      this.linger ??= setTimeout(() => {
        this.linger = undefined;
        this.write(true);
      }, this.grouping.lingerMs);
      return;
    }
    clearTimeout(this.linger);
    this.linger = undefined;
    const group = this.waiting.splice(0);
    const events = group.flatMap((g) => g.events);
    const expected = this.revision;
    this.inFlight = group.length;
    this.writing = this.store.append(this.stream, events, { expectedRevision: expected }).then(
      () => {
        this.revision = (expected === 'no_stream' ? -1 : expected) + events.length;
        this.onRecorded(group.reduce((n, g) => n + g.delivered, 0));
      },
      (err) => {
        if (err instanceof WrongExpectedRevisionError) this.conflicted = true;
        else this.failure = err;
        this.waiting = [];
      },
    ).finally(() => {
      this.inFlight = 0;
      this.writing = undefined;
      this.write(false);
    });
  }
}

/**
 * Where an outlet's delivery stands (the state its stream's last event carries) and a log to append
 * its next attempts at that revision: what a worker does when it takes an outlet, or after a conflict.
 */
export async function openAttemptLog(store: EventStore, outletId: string, onRecorded: (delivered: number) => void): Promise<{ state: OutletState; log: AttemptLog }> {
  const stream = outletStream(outletId);
  const [last] = await store.readStream(stream, { direction: 'backwards', limit: 1 });
  return { state: outletStateOf(last), log: new AttemptLog(store, stream, last ? last.revision : 'no_stream', onRecorded) };
}
