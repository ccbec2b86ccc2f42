import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, WrongExpectedRevisionError, type EventStore } from '../../event-store/src';
import { conflict } from '../../platform/src';
import { loadSettings, SETTINGS_CHANGED, SETTINGS_STREAM, validateSettingsPatch, type Settings, type SettingsChanged } from './settings';

export class UpdateSettingsCommand {
  constructor(
    readonly patch: unknown,
    readonly actor: string,
    readonly requestId?: string,
  ) {}
}

/** PATCH /api/settings/: validated changes appended to the `settings` stream with optimistic concurrency. */
@CommandHandler(UpdateSettingsCommand)
export class UpdateSettingsHandler implements ICommandHandler<UpdateSettingsCommand, Settings> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(cmd: UpdateSettingsCommand): Promise<Settings> {
    const changes = validateSettingsPatch(cmd.patch);
    for (let attempt = 0; attempt < 3; attempt++) {
      const { settings, revision } = await loadSettings(this.store);
      const data: SettingsChanged = { changes, by: cmd.actor, at: new Date().toISOString() };
      try {
        await this.store.append(SETTINGS_STREAM, [{ type: SETTINGS_CHANGED, data, metadata: { actor: cmd.actor, request_id: cmd.requestId } }], { expectedRevision: revision });
        return { ...settings, ...changes };
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
      }
    }
    throw conflict('Settings changed concurrently; try again');
  }
}
