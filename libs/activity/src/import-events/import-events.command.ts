import type { ImportRequest } from '#mds/imports';

/** `POST /api/events/upload/` (and its spellings): new customer events and deletions of earlier ones by id. */
export class ImportEventsCommand {
  constructor(readonly request: ImportRequest) {}
}
