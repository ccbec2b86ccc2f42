import { Module } from '@nestjs/common';
import { AuditHttpController } from './audit.http.controller';

/** Auditors' reads of the log itself (no commands: the log is only read here). */
@Module({ controllers: [AuditHttpController] })
export class AuditHttpModule {}
