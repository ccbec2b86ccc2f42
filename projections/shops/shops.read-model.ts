import type { ReadDeps } from '../runtime/read-side';
import { listShops } from './shops.queries';

export const SHOPS_READ_MODEL = Symbol('ShopsReadModel');

export class ShopsReadModel {
  constructor(private readonly read: Pick<ReadDeps, 'pool'>) {}

  list(options: Parameters<typeof listShops>[1]) {
    return listShops(this.read.pool, options);
  }
}
