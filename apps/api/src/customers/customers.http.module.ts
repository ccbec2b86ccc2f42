import { Module } from '@nestjs/common';
import { CustomersHttpController } from './customers.http.controller';

@Module({ controllers: [CustomersHttpController] })
export class CustomersHttpModule {}
