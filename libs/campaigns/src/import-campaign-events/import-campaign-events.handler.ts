import { Inject } from '@nestjs/common';
import { CommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { ImportUnderSettings, type Settings } from '#mds/settings';
import { campaignEventImport } from '../campaign-event-import';
import { ImportCampaignEventsCommand } from './import-campaign-events.command';

/** Campaign events are validated under the current settings (dates' zone, phones' country). */
@CommandHandler(ImportCampaignEventsCommand)
export class ImportCampaignEventsHandler extends ImportUnderSettings<ImportCampaignEventsCommand> {
  constructor(@Inject(EVENT_STORE) store: EventStore) {
    super(store);
  }

  protected kind(settings: Settings) {
    return campaignEventImport(settings);
  }
}
