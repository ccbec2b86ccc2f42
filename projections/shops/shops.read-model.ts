import { readFrom } from '../runtime/read-pools';
import type { ReadDeps } from '../runtime/read-side';
import { listShops } from './shops.queries';

export const SHOPS_READ_MODEL = Symbol('ShopsReadModel');

export class ShopsReadModel {
  constructor(private readonly read: Pick<ReadDeps, 'pool' | 'readPools'>) {}

  list(options: Parameters<typeof listShops>[1]) {
    return readFrom(this.read, { projections: ['shops'] }, ({ pool }) => listShops(pool, options));
  }
}
