import { Module } from '@nestjs/common';
import { CustomersModule } from '#mds/customers';
import { CustomersHttpController } from './customers.http.controller';

@Module({ imports: [CustomersModule], controllers: [CustomersHttpController] })
export class CustomersHttpModule {}
