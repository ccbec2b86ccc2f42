import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_TOKEN_LIFETIME_S } from '#mds/access';
import { BodyOptional, isIsoTime, Satisfies } from '../platform/request-validation';

const EXPIRES_IN = `expires_in must be a whole number of seconds from 1 to ${MAX_TOKEN_LIFETIME_S} (10 years)`;

/**
 * `POST /api/access-tokens/` (the body is optional: a user's first token needs none). Types only:
 * scopes are normalised and checked against the caller's own by the access context.
 */
@BodyOptional()
export class CreateAccessTokenRequest {
  @IsOptional()
  @IsString({ message: 'name must be a string of at most 200 characters' })
  @MaxLength(200, { message: 'name must be a string of at most 200 characters' })
  name?: string | null;

  @IsOptional()
  @IsString({ message: 'owner_id must be "users/<id>" or "integrations/<id>"' })
  owner_id?: string | null;

  @IsOptional()
  @ArrayMaxSize(100, { message: 'at most 100 scopes per token' })
  // Decorators register bottom-up, and the first to fail is reported: the type check goes last.
  @IsArray({ message: 'scopes must be a list of {method?, path}' })
  scopes?: unknown[] | null;

  @IsOptional()
  @IsBoolean({ message: 'transfer_privileges must be true or false' })
  transfer_privileges?: boolean;

  /** When the token stops working (in the future); or `expires_in`, not both (the access context checks the rest). */
  @IsOptional()
  @Satisfies((v) => isIsoTime(v) && /T/.test(v as string), () => 'expires_at must be an ISO 8601 time with a zone, e.g. 2030-01-31T12:00:00Z')
  expires_at?: string | null;

  @IsOptional()
  @IsInt({ message: EXPIRES_IN })
  @Min(1, { message: EXPIRES_IN })
  @Max(MAX_TOKEN_LIFETIME_S, { message: EXPIRES_IN })
  expires_in?: number | null;
}
