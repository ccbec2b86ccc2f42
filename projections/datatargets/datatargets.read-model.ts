import { readFrom } from '../runtime/read-pools';
import type { ReadDeps } from '../runtime/read-side';
import { deliverableOutlets, findDatatarget, findOutlet, listDatatargets, outletLog, outletLogEntry, readMessages } from './datatargets.queries';
import { expireDeliveredMessages } from './retention';

export const DATATARGETS_READ_MODEL = Symbol('DatatargetsReadModel');

// Attempts are projected by the datatargets projection; a rebuilt request also reads datasync's messages.
const OUTLET_LOG = { projections: ['datatargets', 'datasync'] };

/** Datatargets, their messages, outlets and outlet logs (the datatargets and datasync projections). */
export class DatatargetsReadModel {
  constructor(private readonly read: Pick<ReadDeps, 'pool' | 'readPools'>) {}

  list() {
    return listDatatargets(this.read.pool);
  }

  datatarget(id: string) {
    return findDatatarget(this.read.pool, id);
  }

  outlet(datatargetId: string, outletId: string) {
    return findOutlet(this.read.pool, datatargetId, outletId);
  }

  /** Outlets that are enabled and not paused, on enabled datatargets: what outlet workers deliver. */
  deliverableOutlets() {
    return deliverableOutlets(this.read.pool);
  }

  messages(datatargetId: string, after: number, limit: number) {
    return readMessages(this.read.pool, datatargetId, after, limit);
  }

  // The outlet log may be read on a replica; the definitions above are what commands and workers act on.
  outletLog(outletId: string, options: Parameters<typeof outletLog>[2]) {
    return readFrom(this.read, OUTLET_LOG, ({ pool }) => outletLog(pool, outletId, options));
  }

  outletLogEntry(datatargetId: string, outletId: string, entryNumber: number) {
    return readFrom(this.read, OUTLET_LOG, ({ pool }) => outletLogEntry(pool, datatargetId, outletId, entryNumber));
  }

  /** Retention: delivered messages past their datatarget's retention_days lose their payload. */
  expireDelivered(now?: Date) {
    return expireDeliveredMessages(this.read.pool, now);
  }
}
