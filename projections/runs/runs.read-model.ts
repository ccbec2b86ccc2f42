import type { ReadDeps } from '../runtime/read-side';
import { runStatus, waitForRun } from './runs.queries';

export const RUNS_READ_MODEL = Symbol('RunsReadModel');

/** Import runs: read from their stream, completed once every projection they reach has applied them. */
export class RunsReadModel {
  constructor(private readonly read: ReadDeps) {}

  status(runId: string) {
    return runStatus(this.read, runId);
  }

  /** The run's status once it has ended or `seconds` have passed (a long poll). */
  waitFor(runId: string, seconds: number) {
    return waitForRun(this.read, runId, seconds * 1000);
  }
}
