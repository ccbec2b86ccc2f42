import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, WrongExpectedRevisionError, type EventStore } from '#mds/event-store';
import { conflict, invalidRequest } from '#mds/platform';
import { RESERVED_EVENT_TYPES, loadSettings, SETTINGS_CHANGED, SETTINGS_STREAM, type Settings, type SettingsChanged } from '../settings';
import { UpdateSettingsCommand } from './update-settings.command';

/** Appended to the `settings` stream at its last revision (retried when another change came first). */
@CommandHandler(UpdateSettingsCommand)
export class UpdateSettingsHandler implements ICommandHandler<UpdateSettingsCommand, Settings> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ changes, actor, requestId, tokenId }: UpdateSettingsCommand): Promise<Settings> {
    if (Object.keys(changes).length === 0) throw invalidRequest('No settings to change');
    const builtIn = changes.custom_event_types?.find((t) => RESERVED_EVENT_TYPES.includes(t));
    if (builtIn) throw invalidRequest(`custom_event_types: ${builtIn} is a built-in event type`);
    for (let attempt = 0; attempt < 3; attempt++) {
      const { settings, revision } = await loadSettings(this.store);
      const data: SettingsChanged = { changes, by: actor, at: new Date().toISOString() };
      try {
        await this.store.append(SETTINGS_STREAM, [{ type: SETTINGS_CHANGED, data, metadata: { actor, token_id: tokenId, request_id: requestId } }], { expectedRevision: revision });
        return { ...settings, ...changes };
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
      }
    }
    throw conflict('Settings changed concurrently; try again');
  }
}
