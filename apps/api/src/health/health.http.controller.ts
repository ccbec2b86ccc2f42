import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Runtime } from '../../../../libs/runtime/src';
import { Public } from '../access/permissions';
import { RUNTIME } from '../platform/tokens';

interface Check {
  status: 'ok' | 'failing';
  error?: string;
  [key: string]: unknown;
}

async function check(probe: () => Promise<Record<string, unknown> | void>): Promise<Check> {
  try {
    return { status: 'ok', ...((await probe()) ?? {}) };
  } catch (err) {
    return { status: 'failing', error: (err as Error).message };
  }
}

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
    const [database, eventLog] = await Promise.all([
      check(async () => {
        const { rows } = await this.runtime.pool.query<{ instance_id: string }>('SELECT instance_id FROM mds_instance');
        return { embedded: Boolean(this.runtime.embedded), instance_id: rows[0]?.instance_id };
      }),
      check(async () => {
        await this.runtime.store.ping();
        return { kind: this.runtime.store.kind, head_position: await this.runtime.store.headPosition() };
      }),
    ]);
    const ok = database.status === 'ok' && eventLog.status === 'ok';
    reply.status(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'failing', database, event_log: eventLog };
  }
}
