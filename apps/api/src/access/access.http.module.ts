import { Module } from '@nestjs/common';
import { AccessModule } from '#mds/access';
import { AccessTokensHttpController } from './access-tokens.http.controller';
import { DatasourcesHttpController } from './datasources.http.controller';
import { IntegrationsHttpController } from './integrations.http.controller';

@Module({ imports: [AccessModule], controllers: [AccessTokensHttpController, IntegrationsHttpController, DatasourcesHttpController] })
export class AccessHttpModule {}
