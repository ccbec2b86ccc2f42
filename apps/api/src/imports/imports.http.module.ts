import { Module } from '@nestjs/common';
import { ImportsModule } from '#mds/imports';
import { DataQueryHttpController } from './data-query.http.controller';
import { ExportHttpController } from './export.http.controller';
import { RunsHttpController } from './runs.http.controller';

@Module({ imports: [ImportsModule], controllers: [RunsHttpController, DataQueryHttpController, ExportHttpController] })
export class ImportsHttpModule {}
