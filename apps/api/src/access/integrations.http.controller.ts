import { Body, Controller, Get, HttpCode, Inject, Param, Patch, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { actorOf, ChangeIntegrationCommand, CreateIntegrationCommand, type IntegrationView } from '#mds/access';
import { notFound } from '#mds/platform';
import { ACCESS_READ_MODEL, type AccessReadModel, type IntegrationToken } from '#mds/projections';
import { ChangeIntegrationRequest } from './change-integration.request.dto';
import { CreateIntegrationRequest } from './create-integration.request.dto';
import { RequirePermission } from './permissions';
import { ReadYourWrites } from './read-your-writes';

const INTEGRATION_FIELDS = '{id, name, integration_name, enabled, available_datasources, created_at, datasources, datatargets, datatarget_templates, description, configuration, parameters, tokens}';
const TOKEN_FIELDS = '`tokens`: its tokens that are not revoked, `[{id, name, hint, created_at, expires_at, last_used_at, scopes}]` (never their values)';

type Listed = IntegrationView & { tokens: IntegrationToken[] };

@ApiTags('access')
@Controller('api/integrations')
export class IntegrationsHttpController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(ACCESS_READ_MODEL) private readonly access: AccessReadModel,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  @Post()
  @HttpCode(200)
  @RequirePermission('access:manage')
  @ApiOperation({
    summary: 'Create an integration (admin). Then create its tokens with owner_id "integrations/<id>".',
    description: 'The legacy body of older plugins, `{name, description}`, means `{parameters: {name, description}}`.',
  })
  @ApiBody({
    schema: {
      oneOf: [
        { type: 'object', required: ['parameters'], properties: { integration_name: { type: 'string' }, parameters: { type: 'object', properties: { name: { type: 'string' }, description: { type: 'string' } } } } },
        { type: 'object', required: ['name'], description: 'legacy', properties: { name: { type: 'string' }, description: { type: 'string' } } },
      ],
    },
  })
  @ApiOkResponse({ description: `\`{integration: ${INTEGRATION_FIELDS}}\`` })
  async create(@Req() request: FastifyRequest, @Body() body: CreateIntegrationRequest): Promise<{ integration: Listed }> {
    const result: { integration: IntegrationView; position: number } = await this.commands.execute(new CreateIntegrationCommand(request.principal!, body, request.id));
    await this.readYourWrites.settled('access', result.position);
    // As the integration reads from now on: no tokens yet.
    return { integration: { ...result.integration, tokens: [] } };
  }

  @Get()
  @RequirePermission('access:manage')
  @ApiOperation({ summary: 'Every integration (admin), in creation order, each with its datasources and its tokens', description: TOKEN_FIELDS })
  @ApiOkResponse({ description: `\`{integrations: [${INTEGRATION_FIELDS}, ...], next_url: null}\` (a single page)` })
  async list(): Promise<{ integrations: Listed[]; next_url: null }> {
    return { integrations: await this.access.listIntegrations(), next_url: null };
  }

  @Get(':integration_id')
  @RequirePermission('access:manage')
  @ApiOperation({ summary: 'One integration (admin), with its datasources and its tokens', description: TOKEN_FIELDS })
  @ApiOkResponse({ description: `\`{integration: ${INTEGRATION_FIELDS}}\`` })
  async get(@Param('integration_id') id: string): Promise<{ integration: Listed }> {
    return { integration: await this.integration(id) };
  }

  @Patch(':integration_id')
  @RequirePermission('access:manage')
  @ApiOperation({
    summary: 'Disable or enable an integration (admin): `{enabled: false|true}`',
    description:
      'Disabling revokes every token of the integration (an `AccessTokenRevoked` each, reason `integration_disabled`) and answers once that holds in every API process: its tokens get 401 from the next request on. ' +
      'A disabled integration gets no new tokens (409); enabling it again does not bring revoked tokens back. 404 for an unknown integration.',
  })
  @ApiBody({ schema: { type: 'object', required: ['enabled'], properties: { enabled: { type: 'boolean' } } } })
  @ApiOkResponse({ description: `\`{integration: ${INTEGRATION_FIELDS}}\`` })
  async change(@Req() request: FastifyRequest, @Param('integration_id') id: string, @Body() body: ChangeIntegrationRequest): Promise<{ integration: Listed }> {
    const { position }: { position: number } = await this.commands.execute(new ChangeIntegrationCommand(id, body.enabled, actorOf(request.principal!, request.id)));
    await this.readYourWrites.settled('access', position, { required: body.enabled ? 'Enabling the integration' : 'Disabling the integration and revoking its tokens' });
    return { integration: await this.integration(id) };
  }

  private async integration(id: string): Promise<Listed> {
    const integration = await this.access.integration(id);
    if (!integration) throw notFound(`No integration ${id.slice(0, 64)}`);
    return integration;
  }
}
