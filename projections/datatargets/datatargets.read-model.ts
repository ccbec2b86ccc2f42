import type { ReadDeps } from '../runtime/read-side';
import { deliverableOutlets, findDatatarget, findOutlet, listDatatargets, outletLog, outletLogEntry, readMessages } from './datatargets.queries';
import { expireDeliveredMessages } from './retention';

export const DATATARGETS_READ_MODEL = Symbol('DatatargetsReadModel');

/** Datatargets, their messages, outlets and outlet logs (the datatargets and datasync projections). */
export class DatatargetsReadModel {
  constructor(private readonly read: Pick<ReadDeps, 'pool'>) {}

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

  outletLog(outletId: string, options: Parameters<typeof outletLog>[2]) {
    return outletLog(this.read.pool, outletId, options);
  }

  outletLogEntry(datatargetId: string, outletId: string, entryNumber: number) {
    return outletLogEntry(this.read.pool, datatargetId, outletId, entryNumber);
  }

  /** Retention: delivered messages past their datatarget's retention_days lose their payload. */
  expireDelivered(now?: Date) {
    return expireDeliveredMessages(this.read.pool, now);
  }
}
