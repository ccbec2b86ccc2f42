import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CreateIntegrationCommand, type IntegrationView } from '../../../../libs/access/src';
import { invalidRequest } from '../../../../libs/platform/src';
import type { Runtime } from '../../../../libs/runtime/src';
import { RUNTIME } from '../platform/tokens';
import { RequirePermission } from './permissions';
import { awaitReadModel } from './read-your-writes';

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
  @ApiOperation({ summary: 'Create an integration (admin). Then create its tokens with owner_id "integrations/<id>".' })
  @ApiBody({ schema: { type: 'object', required: ['parameters'], properties: { integration_name: { type: 'string' }, parameters: { type: 'object', properties: { name: { type: 'string' }, description: { type: 'string' } } } } } })
  @ApiOkResponse({ description: '`{integration: {id, name, integration_name, enabled, available_datasources, created_at, datasources, datatargets, datatarget_templates, description, configuration, parameters}}`' })
  async create(@Req() request: FastifyRequest, @Body() body: unknown): Promise<{ integration: IntegrationView }> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('The body must be a JSON object {integration_name, parameters: {name, description}}');
    const result: { integration: IntegrationView; position: number } = await this.commands.execute(new CreateIntegrationCommand(request.principal!, body as Record<string, unknown>, request.id));
    await awaitReadModel(this.runtime, 'access', result.position);
    return { integration: result.integration };
  }
}
