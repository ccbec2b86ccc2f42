export * from './campaigns.events';
export { CAMPAIGN_KEY, campaignImport } from './campaign-import';
export { CAMPAIGN_EVENT_PHONE_KEY, campaignEventImport } from './campaign-event-import';
export { ImportCampaignsCommand } from './import-campaigns/import-campaigns.command';
export { ImportCampaignsHandler } from './import-campaigns/import-campaigns.handler';
export { ImportCampaignEventsCommand } from './import-campaign-events/import-campaign-events.command';
export { ImportCampaignEventsHandler } from './import-campaign-events/import-campaign-events.handler';
export { CampaignsModule } from './campaigns.module';
