import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { RunDataQueryHandler } from './run-data-query/run-data-query.handler';

/** Bulk updates (`POST /api/data/query/`); each datatype's imports are handled by its own context. */
@Module({ imports: [CqrsModule], providers: [RunDataQueryHandler] })
export class ImportsModule {}
