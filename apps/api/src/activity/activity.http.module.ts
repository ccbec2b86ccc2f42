import { Module } from '@nestjs/common';
import { ActivityModule } from '#mds/activity';
import { EventsHttpController } from './events.http.controller';

@Module({ imports: [ActivityModule], controllers: [EventsHttpController] })
export class ActivityHttpModule {}
