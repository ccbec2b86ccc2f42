import { IsOptional, IsString } from 'class-validator';
import { isIsoTime, Satisfies, WholeNumber } from '../platform/request-validation';

/** `GET /api/data/customers/{external_id}/history/?as_of=&from=&limit=` */
export class CustomerHistoryQuery {
  @IsOptional()
  @Satisfies(isIsoTime, () => 'as_of must be an ISO 8601 date or time, e.g. 2026-03-01T10:00:00Z: the customer as it was then')
  as_of?: string;

  @WholeNumber('from', 0, Number.MAX_SAFE_INTEGER, 'from must be how many changes to skip (a whole number), as next_url gives it')
  from?: number;

  @WholeNumber('limit', 1, 1000, 'limit must be a whole number from 1 to 1000 (100 when absent)')
  limit?: number;

  @IsOptional()
  @IsString({ message: 'access-token must be given once' })
  'access-token'?: string;
}
