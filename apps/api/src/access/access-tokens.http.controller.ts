import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import {
  actorOf,
  CreateAccessTokenCommand,
  IssueTokenWithPasswordCommand,
  managesAccess,
  MAX_TOKEN_LIFETIME_S,
  RevokeAccessTokenCommand,
  type MintedToken,
  type Principal,
} from '#mds/access';
import { forbidden, invalidRequest, notFound } from '#mds/platform';
import { ACCESS_READ_MODEL, type AccessReadModel, type AccessTokenListed } from '#mds/projections';
import { nextUrl } from '../imports/paging';
import { ListAccessTokensQuery } from './access-tokens.request.dto';
import { CreateAccessTokenRequest } from './create-access-token.request.dto';
import { ReadYourWrites } from './read-your-writes';
import { AllowPasswordLogin, RequirePermission } from './permissions';

const LISTED_FIELDS = '{id, owner_id, name, hint, created_at, created_by, transferred_roles, scopes, expires_at, last_used_at, revoked_at, revoked_by}';

@ApiTags('access')
@Controller('api/access-tokens')
export class AccessTokensHttpController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(ACCESS_READ_MODEL) private readonly access: AccessReadModel,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  @Post()
  @HttpCode(200)
  @AllowPasswordLogin()
  @RequirePermission('authenticated')
  @ApiOperation({
    summary: 'Create an access token',
    description:
      'User flow: basic authentication with username and password (plus `Service-TOTP-Code` when the user has two-factor authentication); no body needed, optional `{name, scopes, transfer_privileges, expires_at | expires_in}`. ' +
      'Integration flow: an admin, authenticated with a token, sends `{name, owner_id: "integrations/<id>", scopes, transfer_privileges}` (409 when the integration is disabled). ' +
      `\`expires_at\` (ISO 8601, in the future) or \`expires_in\` (seconds, 1 to ${MAX_TOKEN_LIFETIME_S}), not both; neither: the token never expires, unless the token creating it does (then no later than that one). ` +
      'The token value is in this response only; 401 for bad credentials, 403 `account_locked` after 100 failed logins in a row.',
  })
  @ApiHeader({ name: 'Service-TOTP-Code', required: false, description: 'Current six-digit code, for users with two-factor authentication' })
  @ApiBody({
    required: false,
    schema: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        owner_id: { type: 'string' },
        scopes: { type: 'array', items: { type: 'object', properties: { method: { type: 'string' }, path: { type: 'string' } } } },
        transfer_privileges: { type: 'boolean' },
        expires_at: { type: 'string', format: 'date-time' },
        expires_in: { type: 'integer', minimum: 1, maximum: MAX_TOKEN_LIFETIME_S },
      },
    },
  })
  @ApiOkResponse({ description: '`{access_token: {id, owner_id, created_at, name, token, hint, created_by, transferred_roles, scopes, expires_at}}`' })
  async create(@Req() request: FastifyRequest, @Body() input: CreateAccessTokenRequest, @Headers('service-totp-code') totp?: string): Promise<{ access_token: MintedToken['access_token'] }> {
    const minted: MintedToken = request.passwordLogin
      ? await this.commands.execute(new IssueTokenWithPasswordCommand(request.passwordLogin.username, request.passwordLogin.password, totp, input, request.id))
      : await this.commands.execute(new CreateAccessTokenCommand(request.principal!, input, request.id));
    // The token works for the next request: answer once the access read model has it.
    await this.readYourWrites.settled('access', minted.position);
    return { access_token: minted.access_token };
  }

  @Get()
  @RequirePermission('authenticated')
  @ApiOperation({
    summary: 'Access tokens (never their values), oldest first: an admin sees everyone\'s (`owner_id` keeps one owner\'s), others their own',
    description: 'Revoked tokens only with `include_revoked=true`. `last_used_at` is the last use recorded (at most a minute behind while the token is in use). Follow `next_url` (null on the last page).',
  })
  @ApiQuery({ name: 'limit', required: false, type: Number, description: '1 to 1000, default 100' })
  @ApiQuery({ name: 'owner_id', required: false, type: String, description: '`users/<id>` or `integrations/<id>`' })
  @ApiQuery({ name: 'include_revoked', required: false, enum: ['true', 'false'] })
  @ApiQuery({ name: 'after', required: false, type: String, description: 'the cursor of next_url' })
  @ApiOkResponse({ description: `\`{access_tokens: [${LISTED_FIELDS}, ...], next_url}\`` })
  async list(@Req() request: FastifyRequest, @Query() query: ListAccessTokensQuery): Promise<{ access_tokens: AccessTokenListed[]; next_url: string | null }> {
    const principal = request.principal!;
    if (!managesAccess(principal) && query.owner_id !== undefined && query.owner_id !== principal.ownerId) throw forbidden('Only an admin lists the tokens of others');
    const after = query.after === undefined ? undefined : Number(Buffer.from(query.after, 'base64url').toString('utf8'));
    if (after !== undefined && !Number.isSafeInteger(after)) throw invalidRequest('after is not a cursor from next_url');
    const page = await this.access.listTokens({
      ownerId: managesAccess(principal) ? query.owner_id : principal.ownerId,
      includeRevoked: query.include_revoked === 'true',
      after,
      limit: query.limit ?? 100,
    });
    return { access_tokens: page.tokens, next_url: nextUrl(request, page.next === null ? null : String(page.next)) };
  }

  @Get(':token_id')
  @RequirePermission('authenticated')
  @ApiOperation({ summary: 'One access token (never its value): its owner\'s or, for an admin, anyone\'s; 404 when there is none' })
  @ApiOkResponse({ description: `\`{access_token: ${LISTED_FIELDS}}\`` })
  async get(@Req() request: FastifyRequest, @Param('token_id') id: string): Promise<{ access_token: AccessTokenListed }> {
    return { access_token: await this.visibleToken(request.principal!, id) };
  }

  @Delete(':token_id')
  @RequirePermission('authenticated')
  @ApiOperation({
    summary: 'Revoke an access token: its owner\'s own, or (admin) anyone\'s',
    description:
      'Answers once the revocation holds in every API process: the next request with the token gets 401, whichever process serves it. ' +
      'Recorded as `AccessTokenRevoked` (who revoked it, when). Revoking a revoked token changes nothing. 404 for an unknown id, 403 for someone else\'s token; ' +
      '503 when no projector applied the revocation within 10 s (it is recorded, and holds once applied).',
  })
  @ApiOkResponse({ description: `\`{access_token: ${LISTED_FIELDS}}\`, revoked_at and revoked_by set` })
  async revoke(@Req() request: FastifyRequest, @Param('token_id') id: string): Promise<{ access_token: AccessTokenListed }> {
    const { position }: { position: number } = await this.commands.execute(new RevokeAccessTokenCommand(id, actorOf(request.principal!, request.id)));
    await this.readYourWrites.settled('access', position, { required: 'The revocation' });
    return { access_token: await this.visibleToken(request.principal!, id) };
  }

  private async visibleToken(principal: Principal, id: string): Promise<AccessTokenListed> {
    const token = await this.access.token(id);
    if (!token) throw notFound(`No access token ${id.slice(0, 64)}`);
    if (token.owner_id !== principal.ownerId && !managesAccess(principal)) throw forbidden('This token is someone else\'s: only an admin sees it');
    return token;
  }
}
