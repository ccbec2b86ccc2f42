import type { EventStore } from '#mds/event-store';
import { runImport, type UploadAnswer, type ImportKind, type ImportRequest } from '#mds/imports';
import { loadSettings, type Settings } from './settings';

/**
 * What every import command's handler does: read the settings as they stand (time zone, country,
 * company prefixes, custom event types), let its context make the import kind under them, and run
 * the import (validate, append the run in one append, answer). A context's handler names its kind.
 */
export abstract class ImportUnderSettings<C extends { request: ImportRequest }> {
  constructor(protected readonly store: EventStore) {}

  protected abstract kind(settings: Settings, command: C): ImportKind<unknown>;

  async execute(command: C): Promise<UploadAnswer> {
    const { settings } = await loadSettings(this.store);
    return (await runImport(this.store, this.kind(settings, command), command.request)).answer;
  }
}
