import type { ReadDeps } from '../runtime/read-side';
import { listEvents } from './events.queries';

export const EVENTS_READ_MODEL = Symbol('EventsReadModel');

/** Customer events as retrieval shows them. */
export class EventsReadModel {
  constructor(private readonly read: Pick<ReadDeps, 'pool'>) {}

  list(options: Parameters<typeof listEvents>[1]) {
    return listEvents(this.read.pool, options);
  }
}
