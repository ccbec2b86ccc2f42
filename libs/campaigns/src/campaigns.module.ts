import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ImportCampaignEventsHandler } from './import-campaign-events/import-campaign-events.handler';
import { ImportCampaignsHandler } from './import-campaigns/import-campaigns.handler';

/** The campaigns context's command handlers. */
@Module({ imports: [CqrsModule], providers: [ImportCampaignsHandler, ImportCampaignEventsHandler] })
export class CampaignsModule {}
