import { Inject } from '@nestjs/common';
import { CommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { ImportUnderSettings, type Settings } from '#mds/settings';
import { campaignImport } from '../campaign-import';
import { ImportCampaignsCommand } from './import-campaigns.command';

/** Campaigns are validated under the current settings (activated_at's zone). */
@CommandHandler(ImportCampaignsCommand)
export class ImportCampaignsHandler extends ImportUnderSettings<ImportCampaignsCommand> {
  constructor(@Inject(EVENT_STORE) store: EventStore) {
    super(store);
  }

  protected kind(settings: Settings) {
    return campaignImport(settings);
  }
}
