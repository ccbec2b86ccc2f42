import type { ImportRequest } from '#mds/imports';

/** `POST /api/products/upload/` (and its spellings): one import run of product rows. */
export class ImportProductsCommand {
  constructor(readonly request: ImportRequest) {}
}
