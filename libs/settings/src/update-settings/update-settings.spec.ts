import { MemoryEventStore, refusal, settingsChanged } from '#mds/testing/given';
import { DEFAULT_SETTINGS, SETTINGS_CHANGED, SETTINGS_STREAM } from '../settings';
import { UpdateSettingsCommand } from './update-settings.command';
import { UpdateSettingsHandler } from './update-settings.handler';

describe('changing the settings', () => {
  it('given a time zone set earlier, when the country changes, then SettingsChanged holds the change only, and the answer the settings as they stand', async () => {
    const store = new MemoryEventStore();
    await store.given(SETTINGS_STREAM, settingsChanged({ timezone: 'Europe/Helsinki' }));
    const settings = await new UpdateSettingsHandler(store).execute(new UpdateSettingsCommand({ default_country: 'FI' }, 'users/admin', 'req-1', 't1'));
    expect(settings).toEqual({ ...DEFAULT_SETTINGS, timezone: 'Europe/Helsinki', default_country: 'FI' });
    expect(store.appended()).toEqual([{ stream: SETTINGS_STREAM, type: SETTINGS_CHANGED, data: { changes: { default_country: 'FI' }, by: 'users/admin', at: expect.any(String) }, metadata: expect.objectContaining({ actor: 'users/admin', token_id: 't1', request_id: 'req-1' }) }]);
    expect(store.appends[0].options).toEqual({ expectedRevision: 0 });
  });

  it('when nothing is sent, or a custom event type is a built-in one, then it is refused and nothing is appended', async () => {
    const store = new MemoryEventStore();
    expect((await refusal(() => new UpdateSettingsHandler(store).execute(new UpdateSettingsCommand({}, 'users/admin'))))).toMatchObject({ status: 400, message: 'No settings to change' });
    expect((await refusal(() => new UpdateSettingsHandler(store).execute(new UpdateSettingsCommand({ custom_event_types: ['BROWSE'] }, 'users/admin'))))).toMatchObject({ status: 400, message: expect.stringMatching(/BROWSE is a built-in/) });
    expect(store.events).toEqual([]);
  });
});
