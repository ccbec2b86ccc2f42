import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { RUNTIME, serviceHealth, type Runtime } from '#mds/runtime';
import { Public } from '../access/permissions';

@ApiTags('operations')
@Controller()
export class HealthHttpController {
  constructor(@Inject(RUNTIME) private readonly runtime: Runtime) {}

  @Get('health')
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: 'Liveness and readiness: database and event log reachable. No authentication.' })
  @ApiOkResponse({ description: '`{status: "ok", database: {...}, event_log: {...}}`' })
  @ApiServiceUnavailableResponse({ description: 'Same shape with `status: "failing"` and the failing part' })
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const { ok, database, event_log } = await serviceHealth(this.runtime);
    reply.status(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'failing', database, event_log };
  }
}
