import { loadSettings, type Settings } from '#mds/settings';
import type { ReadDeps } from '../runtime/read-side';

export const SETTINGS_READ_MODEL = Symbol('SettingsReadModel');

/** The settings as they stand: read from the `settings` stream (a handful of events), no table. */
export class SettingsReadModel {
  constructor(private readonly read: Pick<ReadDeps, 'store'>) {}

  async current(): Promise<Settings> {
    return (await loadSettings(this.read.store)).settings;
  }
}
