import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import {
  ACCESS_DEPS,
  CreateAccessTokenHandler,
  CreateIntegrationHandler,
  CreateUserHandler,
  IssueTokenWithPasswordHandler,
  UnlockUserHandler,
} from '../../../../libs/access/src';
import type { Runtime } from '../../../../libs/runtime/src';
import { RUNTIME } from '../platform/tokens';
import { AccessTokensHttpController } from './access-tokens.http.controller';
import { IntegrationsHttpController } from './integrations.http.controller';

@Module({
  imports: [CqrsModule],
  controllers: [AccessTokensHttpController, IntegrationsHttpController],
  providers: [
    { provide: ACCESS_DEPS, useFactory: (runtime: Runtime) => runtime.accessDeps, inject: [RUNTIME] },
    CreateUserHandler,
    IssueTokenWithPasswordHandler,
    CreateAccessTokenHandler,
    CreateIntegrationHandler,
    UnlockUserHandler,
  ],
})
export class AccessHttpModule {}
