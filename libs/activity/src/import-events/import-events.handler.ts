import { Inject } from '@nestjs/common';
import { CommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { ImportUnderSettings, type Settings } from '#mds/settings';
import { eventImport } from '../event-import';
import { ImportEventsCommand } from './import-events.command';

/** Which of these event ids exist (deleted or not), up to date with what was already answered: a read-model port. */
export const KNOWN_EVENT_IDS = Symbol('KNOWN_EVENT_IDS');
export type KnownEventIds = (ids: number[]) => Promise<Set<number>>;

/**
 * Events are validated under the current settings (types, zones, phones); new ones get their ids
 * (a reservation in `sequence-events`) and deletions must name events that exist.
 */
@CommandHandler(ImportEventsCommand)
export class ImportEventsHandler extends ImportUnderSettings<ImportEventsCommand> {
  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(KNOWN_EVENT_IDS) private readonly knownEventIds: KnownEventIds,
  ) {
    super(store);
  }

  protected kind(settings: Settings, { request }: ImportEventsCommand) {
    return eventImport(settings, { store: this.store, actor: request.caller, knownEventIds: this.knownEventIds });
  }
}
