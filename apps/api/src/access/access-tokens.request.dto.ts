import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { WholeNumber } from '../platform/request-validation';

/** `GET /api/access-tokens/?limit=&after=&owner_id=&include_revoked=`. */
export class ListAccessTokensQuery {
  @WholeNumber('limit', 1, 1000, 'limit must be a whole number from 1 to 1000 (100 when absent)')
  limit?: number;

  /** The cursor of next_url. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,40}$/, { message: 'after is not a cursor from next_url' })
  after?: string;

  @IsOptional()
  @Matches(/^(users|integrations)\/[A-Za-z0-9-]{1,64}$/, { message: 'owner_id must be users/<id> or integrations/<id>' })
  owner_id?: string;

  @IsOptional()
  @IsIn(['true', 'false'], { message: 'include_revoked must be true or false' })
  include_revoked?: 'true' | 'false';

  @IsOptional()
  @IsString({ message: 'access-token must be given once' })
  'access-token'?: string;
}
