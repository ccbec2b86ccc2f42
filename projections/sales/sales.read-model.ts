import { readFrom } from '../runtime/read-pools';
import type { ReadDeps } from '../runtime/read-side';
import { listSales } from './sales.queries';

export const SALES_READ_MODEL = Symbol('SalesReadModel');

// A sale's shipments (events) and products are linked when read (ADR 0007).
const SALES = { projections: ['sales', 'events', 'products'] };

export class SalesReadModel {
  constructor(private readonly read: Pick<ReadDeps, 'pool' | 'readPools'>) {}

  list(options: Parameters<typeof listSales>[1]) {
    return readFrom(this.read, SALES, ({ pool }) => listSales(pool, options));
  }
}
