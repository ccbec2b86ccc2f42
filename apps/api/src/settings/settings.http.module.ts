import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { UpdateSettingsHandler } from '../../../../libs/settings/src';
import { DataQueryHttpController } from '../imports/data-query.http.controller';
import { RunsHttpController } from '../imports/runs.http.controller';
import { SettingsHttpController } from './settings.http.controller';
import { ShopsHttpController } from './shops.http.controller';

@Module({
  imports: [CqrsModule],
  controllers: [SettingsHttpController, ShopsHttpController, RunsHttpController, DataQueryHttpController],
  providers: [UpdateSettingsHandler],
})
export class SettingsHttpModule {}
