import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import {
  ACCESS_DEPS,
  CreateAccessTokenHandler,
  CreateDatasourceHandler,
  CreateIntegrationHandler,
  CreateUserHandler,
  IssueTokenWithPasswordHandler,
  UnlockUserHandler,
} from '../../../../libs/access/src';
import type { Runtime } from '../../../../libs/runtime/src';
import { RUNTIME } from '../platform/tokens';
import { AccessTokensHttpController } from './access-tokens.http.controller';
import { DatasourcesHttpController } from './datasources.http.controller';
import { IntegrationsHttpController } from './integrations.http.controller';

@Module({
  imports: [CqrsModule],
  controllers: [AccessTokensHttpController, IntegrationsHttpController, DatasourcesHttpController],
  providers: [
    { provide: ACCESS_DEPS, useFactory: (runtime: Runtime) => runtime.accessDeps, inject: [RUNTIME] },
    CreateUserHandler,
    IssueTokenWithPasswordHandler,
    CreateAccessTokenHandler,
    CreateIntegrationHandler,
    CreateDatasourceHandler,
    UnlockUserHandler,
  ],
})
export class AccessHttpModule {}
