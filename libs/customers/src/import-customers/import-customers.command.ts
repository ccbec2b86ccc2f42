import type { ImportRequest } from '#mds/imports';

/** `POST /api/customers/upload/` (and its spellings): one import run of customer records. */
export class ImportCustomersCommand {
  constructor(readonly request: ImportRequest) {}
}
