import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ImportShopsHandler } from './import-shops/import-shops.handler';
import { UpdateSettingsHandler } from './update-settings/update-settings.handler';

/** The settings context's command handlers (settings and the shops records name). */
@Module({ imports: [CqrsModule], providers: [UpdateSettingsHandler, ImportShopsHandler] })
export class SettingsModule {}
