import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { SERVICE_STATUS, type ServiceStatus } from '#mds/projections';
import { Public } from '../access/permissions';

@ApiTags('operations')
@Controller()
export class HealthHttpController {
  constructor(@Inject(SERVICE_STATUS) private readonly status: ServiceStatus) {}

  @Get('health')
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: 'Liveness and readiness: database and event log reachable, read models applying the log. No authentication.' })
  @ApiOkResponse({
    description:
      '`{status: "ok"|"degraded", database: {...}, event_log: {...}, projections: {status, parked: {name: count}, failing: [name]}}`; `degraded` (still 200: the service answers) when a projection parked events or keeps failing',
  })
  @ApiServiceUnavailableResponse({ description: 'Same shape with `status: "failing"` and the failing part' })
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const health = await this.status.health();
    reply.status(health.status === 'failing' ? 503 : 200);
    return health;
  }
}
