import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CreateDatasourceCommand, DATASOURCE_DATATYPES, type DatasourceView } from '#mds/access';
import type { UploadAnswer } from '#mds/imports';
import { invalidRequest, notFound } from '#mds/platform';
import { ACCESS_READ_MODEL, type AccessReadModel } from '#mds/projections';
import { uploadCommand } from '../imports/uploads';
import { CreateDatasourceRequest } from './create-datasource.request.dto';
import { unknownParameters } from '../platform/query-parameters.guard';
import { RequirePermission } from './permissions';
import { UploadEndpoint } from '../imports/upload-endpoint';
import { datasourceImportBody } from '../platform/openapi-records';
import { ReadYourWrites } from './read-your-writes';

const DATASOURCE_FIELDS = '{id, name, integration, datatype, enabled, created_at}';

/**
 * Legacy paths of plugins from 2020–2023: they set up a datasource of an integration and import
 * through it. An import through a datasource is the upload of its datatype (same answer, runs,
 * `Idempotency-Key`, `?atomic`).
 */
@ApiTags('legacy')
@Controller('api/datasources')
export class DatasourcesHttpController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(ACCESS_READ_MODEL) private readonly access: AccessReadModel,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  @Post()
  @HttpCode(200)
  @RequirePermission('access:manage')
  @ApiOperation({
    summary: `Create a datasource of an integration (legacy, admin): \`{name, integration, datatype}\`, datatype one of ${DATASOURCE_DATATYPES.join(', ')}`,
    description: 'An unknown integration is 422 `validation_error`; a bad datatype or a missing name is 400 `invalid_request`. Answers once the datasource is readable.',
  })
  @ApiBody({ schema: { type: 'object', required: ['name', 'integration', 'datatype'], properties: { name: { type: 'string' }, integration: { type: 'string' }, datatype: { type: 'string', enum: [...DATASOURCE_DATATYPES] } } } })
  @ApiOkResponse({ description: `\`{datasource: ${DATASOURCE_FIELDS}}\`` })
  async create(@Req() request: FastifyRequest, @Body() body: CreateDatasourceRequest): Promise<{ datasource: DatasourceView }> {
    const result: { datasource: DatasourceView; position: number } = await this.commands.execute(new CreateDatasourceCommand(request.principal!, body, request.id));
    await this.readYourWrites.settled('access', result.position);
    return { datasource: result.datasource };
  }

  @Get()
  @RequirePermission('access:manage')
  @ApiOperation({ summary: 'Datasources (legacy, admin) in creation order; `?integration=<id>` keeps one integration\'s' })
  @ApiQuery({ name: 'integration', required: false, type: String })
  @ApiOkResponse({ description: `\`{datasources: [${DATASOURCE_FIELDS}, ...], next_url: null}\` (a single page)` })
  async list(@Query() query: Record<string, unknown>): Promise<{ datasources: DatasourceView[]; next_url: null }> {
    const unknown = Object.keys(query).filter((k) => k !== 'integration' && k !== 'access-token');
    if (unknown.length > 0) throw unknownParameters(unknown, ['integration', 'access-token']);
    const integration = query.integration;
    if (integration !== undefined && typeof integration !== 'string') throw invalidRequest('integration must be given once');
    return { datasources: await this.access.listDatasources({ integrationId: integration || undefined }), next_url: null };
  }

  @Get(':datasource_id')
  @RequirePermission('access:manage')
  @ApiOperation({ summary: 'One datasource (legacy, admin)' })
  @ApiOkResponse({ description: `\`{datasource: ${DATASOURCE_FIELDS}}\`` })
  async get(@Param('datasource_id') id: string): Promise<{ datasource: DatasourceView }> {
    return { datasource: await this.datasource(id) };
  }

  @UploadEndpoint('POST', ':datasource_id/import', {
    summary: 'Import through a datasource (legacy): the body of its datatype\'s upload (`{customers: [...]}`, `{products: [...]}`, `{events: [...]}` or a bare list, `{sales: [...]}`)',
    description: 'Answers exactly as that datatype\'s `/api/<datatype>/upload/`: partial acceptance, `?atomic=true`, `Idempotency-Key`, a run readable at GET /api/runs/{run_id}/. Unknown datasource: 404.',
  }, datasourceImportBody())
  async importThrough(@Req() request: FastifyRequest, @Param('datasource_id') id: string, @Body() body: unknown): Promise<UploadAnswer> {
    const datasource = await this.datasource(id);
    return this.commands.execute(uploadCommand(datasource.datatype, request, body));
  }

  // Its own handler: stacked @Post and @Put on one method register only the outermost.
  @UploadEndpoint('PUT', ':datasource_id/import', { summary: 'Import through a datasource (legacy; PUT spelling, the same as POST)' }, datasourceImportBody())
  importThroughPut(@Req() request: FastifyRequest, @Param('datasource_id') id: string, @Body() body: unknown): Promise<UploadAnswer> {
    return this.importThrough(request, id, body);
  }

  private async datasource(id: string): Promise<DatasourceView> {
    const datasource = await this.access.datasource(id);
    if (!datasource) throw notFound(`No datasource ${id.slice(0, 64)}`);
    return datasource;
  }
}
