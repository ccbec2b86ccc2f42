import { Matches } from 'class-validator';

/** `GET /api/runs/{run_id}/`: a run id is the UUID an import answered with. */
export class RunParams {
  @Matches(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { message: 'run_id must be the id an import answered with (a UUID)' })
  run_id!: string;
}
