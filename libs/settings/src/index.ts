export * from './settings';
export * from './shops';
export { SHOP_FIELDS, SHOP_RECORD } from './shop.fields';
export { UpdateSettingsCommand } from './update-settings/update-settings.command';
export { UpdateSettingsHandler } from './update-settings/update-settings.handler';
export { ImportShopsCommand } from './import-shops/import-shops.command';
export { ImportShopsHandler } from './import-shops/import-shops.handler';
export { SettingsModule } from './settings.module';
export { ImportUnderSettings } from './import-under-settings';
