import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ForgetCustomerHandler } from './forget-customer/forget-customer.handler';
import { ImportCustomersHandler } from './import-customers/import-customers.handler';
import { RecordCustomerExportHandler } from './record-customer-export/record-customer-export.handler';

/** The customers context's command handlers. */
@Module({ imports: [CqrsModule], providers: [ImportCustomersHandler, ForgetCustomerHandler, RecordCustomerExportHandler] })
export class CustomersModule {}
