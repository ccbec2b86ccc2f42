import { Module } from '@nestjs/common';
import { EventsHttpController } from './events.http.controller';

@Module({ controllers: [EventsHttpController] })
export class ActivityHttpModule {}
