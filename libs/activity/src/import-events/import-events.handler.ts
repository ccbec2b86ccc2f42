import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { runImport, type ImportAnswer } from '#mds/imports';
import { loadSettings } from '#mds/settings';
import { eventImport } from '../event-import';
import { ImportEventsCommand } from './import-events.command';

/** Which of these event ids exist (deleted or not), up to date with what was already answered: a read-model port. */
export const KNOWN_EVENT_IDS = Symbol('KNOWN_EVENT_IDS');
export type KnownEventIds = (ids: number[]) => Promise<Set<number>>;

/**
 * Validates the events under the current settings, assigns new events their ids (a reservation in
 * `sequence-events`), checks that deleted ids exist, and appends the run in one append.
 */
@CommandHandler(ImportEventsCommand)
export class ImportEventsHandler implements ICommandHandler<ImportEventsCommand, ImportAnswer> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(KNOWN_EVENT_IDS) private readonly knownEventIds: KnownEventIds,
  ) {}

  async execute({ request }: ImportEventsCommand): Promise<ImportAnswer> {
    const { settings } = await loadSettings(this.store);
    const kind = eventImport(settings, { store: this.store, actor: request.caller, knownEventIds: this.knownEventIds });
    return (await runImport(this.store, kind, request)).answer;
  }
}
