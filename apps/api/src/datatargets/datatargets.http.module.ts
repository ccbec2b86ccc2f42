import { Module } from '@nestjs/common';
import { DatatargetsModule } from '#mds/datatargets';
import { DatatargetsHttpController } from './datatargets.http.controller';

@Module({ imports: [DatatargetsModule], controllers: [DatatargetsHttpController] })
export class DatatargetsHttpModule {}
