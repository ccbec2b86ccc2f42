import type { ImportRequest } from '#mds/imports';

/** `POST /api/shops/upload/`: the shops (store views) that records name by shop_id. */
export class ImportShopsCommand {
  constructor(readonly request: ImportRequest) {}
}
