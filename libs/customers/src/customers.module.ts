import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ImportCustomersHandler } from './import-customers/import-customers.handler';

/** The customers context's command handlers. */
@Module({ imports: [CqrsModule], providers: [ImportCustomersHandler] })
export class CustomersModule {}
