import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ImportSalesHandler } from './import-sales/import-sales.handler';

/** The sales context's command handlers (its read-model port comes from the composition root). */
@Module({ imports: [CqrsModule], providers: [ImportSalesHandler] })
export class SalesModule {}
