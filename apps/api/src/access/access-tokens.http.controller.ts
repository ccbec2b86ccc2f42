import { Body, Controller, Headers, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiBearerAuth, ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import {
  CreateAccessTokenCommand,
  IssueTokenWithPasswordCommand,
  type MintedToken,
} from '#mds/access';
import { RUNTIME, type Runtime } from '#mds/runtime';
import { CreateAccessTokenRequest } from './create-access-token.request.dto';
import { awaitReadModel } from './read-your-writes';
import { AllowPasswordLogin, RequirePermission } from './permissions';

@ApiTags('access')
@Controller('api/access-tokens')
export class AccessTokensHttpController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(RUNTIME) private readonly runtime: Runtime,
  ) {}

  @Post()
  @HttpCode(200)
  @AllowPasswordLogin()
  @RequirePermission('authenticated')
  @ApiOperation({
    summary: 'Create an access token',
    description:
      'User flow: basic authentication with username and password (plus `Service-TOTP-Code` when the user has two-factor authentication); no body needed, optional `{name, scopes, transfer_privileges}`. ' +
      'Integration flow: an admin, authenticated with a token, sends `{name, owner_id: "integrations/<id>", scopes, transfer_privileges}`. ' +
      'The token value is in this response only; 401 for bad credentials, 403 `account_locked` after 100 failed logins in a row.',
  })
  @ApiBasicAuth()
  @ApiBearerAuth()
  @ApiHeader({ name: 'Service-TOTP-Code', required: false, description: 'Current six-digit code, for users with two-factor authentication' })
  @ApiBody({ required: false, schema: { type: 'object', properties: { name: { type: 'string' }, owner_id: { type: 'string' }, scopes: { type: 'array', items: { type: 'object', properties: { method: { type: 'string' }, path: { type: 'string' } } } }, transfer_privileges: { type: 'boolean' } } } })
  @ApiOkResponse({ description: '`{access_token: {id, owner_id, created_at, name, token, hint, created_by, transferred_roles, scopes}}`' })
  async create(@Req() request: FastifyRequest, @Body() input: CreateAccessTokenRequest, @Headers('service-totp-code') totp?: string): Promise<{ access_token: MintedToken['access_token'] }> {
    const minted: MintedToken = request.passwordLogin
      ? await this.commands.execute(new IssueTokenWithPasswordCommand(request.passwordLogin.username, request.passwordLogin.password, totp, input, request.id))
      : await this.commands.execute(new CreateAccessTokenCommand(request.principal!, input, request.id));
    // The token works for the next request: answer once the access read model has it.
    await awaitReadModel(this.runtime, 'access', minted.position);
    return { access_token: minted.access_token };
  }
}
