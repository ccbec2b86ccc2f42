import type { ReadDeps } from '../runtime/read-side';
import { listSales } from './sales.queries';

export const SALES_READ_MODEL = Symbol('SalesReadModel');

export class SalesReadModel {
  constructor(private readonly read: Pick<ReadDeps, 'pool'>) {}

  list(options: Parameters<typeof listSales>[1]) {
    return listSales(this.read.pool, options);
  }
}
