import type { ReadDeps } from '../runtime/read-side';
import { exportKeyTypes, exportPage, type ExportDatatype } from './export.queries';

export const EXPORT_READ_MODEL = Symbol('ExportReadModel');

/** Whole-datatype exports: the live records of customers, products, events, sales or shops, a keyset page at a time. */
export class ExportReadModel {
  constructor(private readonly read: Pick<ReadDeps, 'pool'>) {}

  page(datatype: ExportDatatype, after: string[] | undefined, limit: number) {
    return exportPage(this.read.pool, datatype, after, limit);
  }

  keyTypes(datatype: ExportDatatype) {
    return exportKeyTypes(datatype);
  }
}
