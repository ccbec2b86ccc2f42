import { ArrayMaxSize, IsArray, IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { BodyOptional } from '../platform/request-validation';

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
}
