import { readFrom } from '../runtime/read-pools';
import type { ReadDeps } from '../runtime/read-side';
import { customerConsent } from './customer-consent';
import { openCustomerExport } from './customer-export';
import { customerHistory } from './customer-history';
import { findLiveCustomer, listCustomers } from './customers.queries';

export const CUSTOMERS_READ_MODEL = Symbol('CustomersReadModel');

const CUSTOMERS = { projections: ['customers'] };

/** Customers as retrieval shows them, and one customer's history, consent history and export. */
export class CustomersReadModel {
  constructor(private readonly read: ReadDeps) {}

  list(options: Parameters<typeof listCustomers>[1]) {
    return readFrom(this.read, CUSTOMERS, ({ pool }) => listCustomers(pool, options));
  }

  /** The live customer an identifier finds now (forgetting looks them up with it). */
  findLive(by: Parameters<typeof findLiveCustomer>[1], value: string) {
    return findLiveCustomer(this.read.pool, by, value);
  }

  history(externalId: string, options: Parameters<typeof customerHistory>[2] = {}) {
    return readFrom(this.read, CUSTOMERS, (source) => customerHistory({ ...this.read, ...source }, externalId, options));
  }

  consent(externalId: string, options: Parameters<typeof customerConsent>[2] = {}) {
    return readFrom(this.read, CUSTOMERS, (source) => customerConsent({ ...this.read, ...source }, externalId, options));
  }

  /**
   * One customer's data to export, opened (undefined: no customer has the external id now). On the
   * primary: it reads many read models, page by page, after its access is recorded.
   */
  openExport(externalId: string) {
    return openCustomerExport(this.read, externalId);
  }
}
