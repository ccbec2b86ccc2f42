import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

/** `GET /api/runs/{run_id}/`: a run id is the UUID an import answered with. */
export class RunParams {
  @Matches(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { message: 'run_id must be the id an import answered with (a UUID)' })
  run_id!: string;
}

/** `?wait=<seconds>`: answer once the run has ended, or after that long (a long poll, at most 30 s). */
export class RunQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'wait must be a whole number of seconds from 0 to 30' })
  @Min(0, { message: 'wait must be a whole number of seconds from 0 to 30' })
  @Max(30, { message: 'wait must be a whole number of seconds from 0 to 30' })
  wait?: number;

  @IsOptional()
  @IsString({ message: 'access-token must be given once' })
  'access-token'?: string;
}
