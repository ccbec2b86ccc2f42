import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ImportEventsHandler } from './import-events/import-events.handler';

/** The customer events context's command handlers (its read-model port comes from the composition root). */
@Module({ imports: [CqrsModule], providers: [ImportEventsHandler] })
export class ActivityModule {}
