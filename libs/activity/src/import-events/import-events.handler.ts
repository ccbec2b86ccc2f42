import { Inject } from '@nestjs/common';
import { CommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { KNOWN_SALE_TRANSACTIONS, type KnownSaleTransactions } from '#mds/sales';
import { ImportUnderSettings, type Settings } from '#mds/settings';
import { eventImport } from '../event-import';
import { ImportEventsCommand } from './import-events.command';

/** Which of these event ids exist (deleted or not), up to date with what was already answered: a read-model port. */
export const KNOWN_EVENT_IDS = Symbol('KNOWN_EVENT_IDS');
export type KnownEventIds = (ids: number[]) => Promise<Set<number>>;

/**
 * Events are validated under the current settings (types, zones, phones); new ones get their ids
 * (a reservation in `sequence-events`), deletions must name events that exist, and a shipment naming
 * no known sale is warned of.
 */
@CommandHandler(ImportEventsCommand)
export class ImportEventsHandler extends ImportUnderSettings<ImportEventsCommand> {
  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(KNOWN_EVENT_IDS) private readonly knownEventIds: KnownEventIds,
    @Inject(KNOWN_SALE_TRANSACTIONS) private readonly knownSales: KnownSaleTransactions,
  ) {
    super(store);
  }

  protected kind(settings: Settings, { request }: ImportEventsCommand) {
    return eventImport(settings, { store: this.store, actor: request.caller, knownEventIds: this.knownEventIds, knownSales: this.knownSales });
  }
}
