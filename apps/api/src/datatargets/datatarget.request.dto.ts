import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { DATASYNC_DATATYPES } from '#mds/datatargets';
import { WhenSent, WholeNumber } from '../platform/request-validation';

const NAME = 'name must be a non-empty string of at most 200 characters';
const DESCRIPTION = 'description must be a string of at most 2000 characters';
const RETENTION = 'retention_days must be a whole number of days from 0 to 36500, or null to keep delivered messages';

/** retention_days: a whole number of days, or null (keep); absent changes nothing. */
function RetentionDays(): PropertyDecorator {
  return (target, key) => {
    ValidateIf((_o, v) => v !== undefined && v !== null)(target, key);
    IsInt({ message: RETENTION })(target, key);
    Min(0, { message: RETENTION })(target, key);
    Max(36500, { message: RETENTION })(target, key);
  };
}

/** `POST /api/datatargets/`: `{datatarget_type: "messages", name, description?}` or a datasync one with its `datatype`. */
export class CreateDatatargetRequest {
  @IsIn(['messages', 'datasync'], { message: 'datatarget_type must be "messages" or "datasync"' })
  datatarget_type!: 'messages' | 'datasync';

  @IsString({ message: NAME })
  @Matches(/\S/, { message: NAME })
  @MaxLength(200, { message: NAME })
  name!: string;

  @IsOptional()
  @IsString({ message: DESCRIPTION })
  @MaxLength(2000, { message: DESCRIPTION })
  description?: string;

  @IsOptional()
  @IsIn(DATASYNC_DATATYPES, { message: `datatype must be one of ${DATASYNC_DATATYPES.join(', ')}` })
  datatype?: string;

  @RetentionDays()
  retention_days?: number | null;
}

/** `PATCH /api/datatargets/{id}/`: any of name, description, enabled. */
export class ChangeDatatargetRequest {
  @WhenSent()
  @IsString({ message: NAME })
  @Matches(/\S/, { message: NAME })
  @MaxLength(200, { message: NAME })
  name?: string;

  @WhenSent()
  @IsString({ message: DESCRIPTION })
  @MaxLength(2000, { message: DESCRIPTION })
  description?: string;

  @WhenSent()
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled?: boolean;

  @RetentionDays()
  retention_days?: number | null;
}

/** Query parameters every route accepts besides its own (the token, for systems that can set nothing else). */
class WithAccessToken {
  @IsOptional()
  @IsString({ message: 'access-token must be given once' })
  'access-token'?: string;
}

/** `GET …/retrieve/?after=N&limit=L`. */
export class RetrieveMessagesQuery extends WithAccessToken {
  @WholeNumber('after', 0, Number.MAX_SAFE_INTEGER)
  after?: number;

  @WholeNumber('limit', 1, 10_000)
  limit?: number;
}

/** `GET …/outlets/{id}/log/?limit=L&from=N&order=ascending|descending`. */
export class OutletLogQuery extends WithAccessToken {
  @WholeNumber('limit', 1, 10_000)
  limit?: number;

  @WholeNumber('from', 0, Number.MAX_SAFE_INTEGER)
  from?: number;

  @IsOptional()
  @IsIn(['ascending', 'descending'], { message: 'order must be ascending or descending' })
  order?: 'ascending' | 'descending';
}
