import type { ImportRequest } from '#mds/imports';

/** `POST /api/sales/upload/` (and its spellings): sale rows, combined into transactions by sale_external_id. */
export class ImportSalesCommand {
  constructor(readonly request: ImportRequest) {}
}
