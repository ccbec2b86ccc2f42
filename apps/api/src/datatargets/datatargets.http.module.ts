import { Module } from '@nestjs/common';
import { DatatargetsHttpController } from './datatargets.http.controller';

@Module({ controllers: [DatatargetsHttpController] })
export class DatatargetsHttpModule {}
