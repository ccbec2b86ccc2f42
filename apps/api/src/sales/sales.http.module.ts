import { Module } from '@nestjs/common';
import { SalesHttpController } from './sales.http.controller';

@Module({ controllers: [SalesHttpController] })
export class SalesHttpModule {}
