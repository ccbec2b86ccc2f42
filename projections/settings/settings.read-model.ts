import { loadSettings, type Settings } from '#mds/settings';
import { KeptAnswers } from '../runtime/kept-answers';
import type { ReadDeps } from '../runtime/read-side';

export const SETTINGS_READ_MODEL = Symbol('SettingsReadModel');

/** Announces a change of the settings to every process (SettingsReadModel.changed). */
export const SETTINGS_CHANNEL = 'mds_settings';

/**
 * The settings as they stand: read from the `settings` stream (a handful of events), no table.
 * An API process keeps what it read (`keepFor`), so a data request costs no read of the log: the
 * process that changes them forgets its own before it answers and announces the change on
 * SETTINGS_CHANNEL, whose arrival (or a lost connection to it) makes every other process forget
 * theirs. A lost announcement matters for the keep time at most. Imports read the stream each time.
 */
export class SettingsReadModel {
  private readonly kept = new KeptAnswers<Settings>();

  constructor(private readonly read: Pick<ReadDeps, 'store' | 'pool'>) {}

  keepFor(ms: number): void {
    this.kept.keepFor(ms);
  }

  forget(): void {
    this.kept.forget();
  }

  /** This process changed them: it forgets its own, then tells the others (a failure leaves them the keep time). */
  async changed(): Promise<void> {
    this.forget();
    await this.read.pool.query(`SELECT pg_notify('${SETTINGS_CHANNEL}', '')`).catch(() => undefined);
  }

  current(): Promise<Settings> {
    return this.kept.get('', async () => (await loadSettings(this.read.store)).settings);
  }
}
