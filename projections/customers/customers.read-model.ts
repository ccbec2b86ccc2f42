import type { ReadDeps } from '../runtime/read-side';
import { customerHistory } from './customer-history';
import { findLiveCustomer, listCustomers } from './customers.queries';

export const CUSTOMERS_READ_MODEL = Symbol('CustomersReadModel');

/** Customers as retrieval shows them, and one customer's history. */
export class CustomersReadModel {
  constructor(private readonly read: ReadDeps) {}

  list(options: Parameters<typeof listCustomers>[1]) {
    return listCustomers(this.read.pool, options);
  }

  /** The live customer an identifier finds now (forgetting looks them up with it). */
  findLive(by: Parameters<typeof findLiveCustomer>[1], value: string) {
    return findLiveCustomer(this.read.pool, by, value);
  }

  history(externalId: string, options: Parameters<typeof customerHistory>[2] = {}) {
    return customerHistory(this.read, externalId, options);
  }
}
