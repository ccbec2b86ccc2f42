import { Module } from '@nestjs/common';
import { SalesModule } from '#mds/sales';
import { SalesHttpController } from './sales.http.controller';

@Module({ imports: [SalesModule], controllers: [SalesHttpController] })
export class SalesHttpModule {}
