import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { IssueTokenWithPasswordHandler } from './authenticate-user/issue-token-with-password.handler';
import { CreateAccessTokenHandler } from './create-access-token/create-access-token.handler';
import { CreateDatasourceHandler } from './create-datasource/create-datasource.handler';
import { CreateIntegrationHandler } from './create-integration/create-integration.handler';
import { CreateUserHandler } from './create-user/create-user.handler';
import { CreateUserTokenHandler } from './create-user-token/create-user-token.handler';
import { UnlockUserHandler } from './unlock-user/unlock-user.handler';
import { ChangeUserPasswordHandler } from './change-user-password/change-user-password.handler';
import { DeleteUserHandler } from './delete-user/delete-user.handler';
import { ChangeIntegrationHandler } from './change-integration/change-integration.handler';
import { RecordTokenUseHandler } from './record-token-use/record-token-use.handler';
import { RevokeAccessTokenHandler } from './revoke-access-token/revoke-access-token.handler';

/** The access context's command handlers (ACCESS_DEPS, OWNER_TOKENS and the event store come from the composition root). */
@Module({
  imports: [CqrsModule],
  providers: [
    CreateUserHandler,
    CreateUserTokenHandler,
    IssueTokenWithPasswordHandler,
    CreateAccessTokenHandler,
    CreateIntegrationHandler,
    CreateDatasourceHandler,
    UnlockUserHandler,
    ChangeUserPasswordHandler,
    DeleteUserHandler,
    RevokeAccessTokenHandler,
    RecordTokenUseHandler,
    ChangeIntegrationHandler,
  ],
})
export class AccessModule {}
