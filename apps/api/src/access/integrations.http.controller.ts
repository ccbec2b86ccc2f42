import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CreateIntegrationCommand, type IntegrationView } from '#mds/access';
import { notFound } from '#mds/platform';
import { findIntegration, listIntegrations } from '#mds/projections';
import { RUNTIME, type Runtime } from '#mds/runtime';
import { CreateIntegrationRequest } from './create-integration.request.dto';
import { RequirePermission } from './permissions';
import { awaitReadModel } from './read-your-writes';

const INTEGRATION_FIELDS = '{id, name, integration_name, enabled, available_datasources, created_at, datasources, datatargets, datatarget_templates, description, configuration, parameters}';

@ApiTags('access')
@ApiBearerAuth()
@Controller('api/integrations')
export class IntegrationsHttpController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(RUNTIME) private readonly runtime: Runtime,
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
  async create(@Req() request: FastifyRequest, @Body() body: CreateIntegrationRequest): Promise<{ integration: IntegrationView }> {
    const result: { integration: IntegrationView; position: number } = await this.commands.execute(new CreateIntegrationCommand(request.principal!, body, request.id));
    await awaitReadModel(this.runtime, 'access', result.position);
    return { integration: result.integration };
  }

  @Get()
  @RequirePermission('access:manage')
  @ApiOperation({ summary: 'Every integration (admin), in creation order, each with its datasources' })
  @ApiOkResponse({ description: '`{integrations: [integration, ...], next_url: null}` (a single page)' })
  async list(): Promise<{ integrations: IntegrationView[]; next_url: null }> {
    return { integrations: await listIntegrations(this.runtime.pool), next_url: null };
  }

  @Get(':integration_id')
  @RequirePermission('access:manage')
  @ApiOperation({ summary: 'One integration (admin), with its datasources' })
  @ApiOkResponse({ description: `\`{integration: ${INTEGRATION_FIELDS}}\`` })
  async get(@Param('integration_id') id: string): Promise<{ integration: IntegrationView }> {
    const integration = await findIntegration(this.runtime.pool, id);
    if (!integration) throw notFound(`No integration ${id.slice(0, 64)}`);
    return { integration };
  }
}
