import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { RunStatus } from '#mds/imports';
import { notFound } from '#mds/platform';
import { RUNS_READ_MODEL, type RunsReadModel } from '#mds/projections';
import { RequirePermission } from '../access/permissions';
import { RunParams, RunQuery } from './run.request.dto';

@ApiTags('runs')
@Controller('api/runs')
export class RunsHttpController {
  constructor(@Inject(RUNS_READ_MODEL) private readonly runs: RunsReadModel) {}

  @Get(':run_id')
  @RequirePermission('data:read')
  @ApiOperation({
    summary: 'Status of an import run: scheduled until its records are projected (readable), then completed (or failed, with a reason)',
    description: '`?wait=<seconds>` (0 to 30): answers once the run has ended or that long has passed, whichever comes first (a long poll), instead of polling.',
  })
  @ApiOkResponse({ description: '`{run_id, kind, state: scheduled|completed|failed, received, accepted, rejected, errors, warnings, created_at, completed_at, log_position}`; `log_position` (once ended) is what a read sends as `Min-Position` to see the run on a replica' })
  async get(@Param() { run_id: runId }: RunParams, @Query() query: RunQuery): Promise<RunStatus> {
    const status = query.wait ? await this.runs.waitFor(runId, query.wait) : await this.runs.status(runId);
    if (!status) throw notFound(`No import run ${runId}`);
    return status;
  }
}
