import { readFrom } from '../runtime/read-pools';
import type { ReadDeps } from '../runtime/read-side';
import { listProducts } from './products.queries';

export const PRODUCTS_READ_MODEL = Symbol('ProductsReadModel');

export class ProductsReadModel {
  constructor(private readonly read: Pick<ReadDeps, 'pool' | 'readPools'>) {}

  list(options: Parameters<typeof listProducts>[1]) {
    return readFrom(this.read, { projections: ['products'] }, ({ pool }) => listProducts(pool, options));
  }
}
