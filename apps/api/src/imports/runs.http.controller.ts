import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { EVENT_STORE, type EventStore } from '../../../../libs/event-store/src';
import { readRun, type RunStatus } from '../../../../libs/imports/src';
import { notFound } from '../../../../libs/platform/src';
import type { Runtime } from '../../../../libs/runtime/src';
import { IMPORT_PROJECTIONS, liveGeneration, QUERY_PROJECTIONS } from '../../../../projections';
import { RequirePermission } from '../access/permissions';
import { RUNTIME } from '../platform/tokens';

@ApiTags('imports')
@ApiBearerAuth()
@Controller('api/runs')
export class RunsHttpController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(RUNTIME) private readonly runtime: Runtime,
  ) {}

  @Get(':run_id')
  @RequirePermission('data:read')
  @ApiOperation({ summary: 'Status of an import run: scheduled until its records are projected (readable), then completed' })
  @ApiOkResponse({ description: '`{run_id, kind, state: scheduled|completed|failed, received, accepted, rejected, errors, warnings, created_at, completed_at}`' })
  async get(@Param('run_id') runId: string): Promise<RunStatus> {
    const run = await readRun(this.store, runId);
    if (!run) throw notFound(`No import run ${runId}`);
    // A run is complete once every read model its records feed has passed it.
    const fed = run.header.query ? QUERY_PROJECTIONS[run.header.query.datatype] : IMPORT_PROJECTIONS[run.header.kind];
    const lives = await Promise.all((fed ?? []).map((p) => liveGeneration(this.runtime.pool, p)));
    const completed = lives.length > 0 && lives.every((l) => l !== undefined && l.checkpoint >= run.lastPosition);
    const completedAt = completed ? lives.map((l) => l!.updatedAt).sort().at(-1)! : null;
    const { header } = run;
    return {
      run_id: header.run_id,
      kind: header.kind,
      state: completed ? 'completed' : 'scheduled',
      received: header.received,
      accepted: header.accepted,
      rejected: header.rejected,
      errors: header.errors,
      warnings: header.warnings ?? [],
      created_at: header.created_at,
      // The projection's checkpoint time is when it passed the run (or later): an upper bound.
      completed_at: completedAt,
    };
  }
}
