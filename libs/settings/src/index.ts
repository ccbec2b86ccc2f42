export * from './settings';
export * from './shops';
export { UpdateSettingsCommand, UpdateSettingsHandler } from './update-settings.handler';
