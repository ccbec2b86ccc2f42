import { readFrom } from '../runtime/read-pools';
import type { ReadDeps } from '../runtime/read-side';
import { exportKeyTypes, exportPage, exportProjections, type ExportDatatype, type ExportPageOptions } from './export.queries';

export const EXPORT_READ_MODEL = Symbol('ExportReadModel');

/**
 * Whole-datatype exports: the records of customers, products, events, sales or shops as their lists
 * show them, a keyset page at a time, each page where that list's page would be read (a replica
 * that has replayed what it needs, else the primary).
 */
export class ExportReadModel {
  constructor(private readonly read: Pick<ReadDeps, 'pool' | 'readPools'>) {}

  page(datatype: ExportDatatype, options: ExportPageOptions) {
    return readFrom(this.read, { projections: exportProjections(datatype) }, ({ pool }) => exportPage(pool, datatype, options));
  }

  keyTypes(datatype: ExportDatatype) {
    return exportKeyTypes(datatype);
  }
}
