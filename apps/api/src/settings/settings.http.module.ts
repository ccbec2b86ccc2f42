import { Module } from '@nestjs/common';
import { SettingsModule } from '#mds/settings';
import { SettingsHttpController } from './settings.http.controller';
import { ShopsHttpController } from './shops.http.controller';

@Module({ imports: [SettingsModule], controllers: [SettingsHttpController, ShopsHttpController] })
export class SettingsHttpModule {}
