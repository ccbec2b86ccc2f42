import { readFrom } from '../runtime/read-pools';
import type { ReadDeps } from '../runtime/read-side';
import { listEvents } from './events.queries';

export const EVENTS_READ_MODEL = Symbol('EventsReadModel');

// Events are linked to their customers, products and sales when read (ADR 0007).
const EVENTS = { projections: ['events', 'customers', 'products', 'sales'] };

/** Customer events as retrieval shows them. */
export class EventsReadModel {
  constructor(private readonly read: Pick<ReadDeps, 'pool' | 'readPools'>) {}

  list(options: Parameters<typeof listEvents>[1]) {
    return readFrom(this.read, EVENTS, ({ pool }) => listEvents(pool, options));
  }
}
