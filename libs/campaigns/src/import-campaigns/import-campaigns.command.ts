import type { ImportRequest } from '#mds/imports';

/** `POST /api/campaigns/upload/`: campaigns by campaign_key, patched by later imports. */
export class ImportCampaignsCommand {
  constructor(readonly request: ImportRequest) {}
}
