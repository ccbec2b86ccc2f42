import type { ImportRequest } from '#mds/imports';

/** `POST /api/campaigns/events/upload/`: what happened to a campaign's messages (sent, delivered, open …). */
export class ImportCampaignEventsCommand {
  constructor(readonly request: ImportRequest) {}
}
