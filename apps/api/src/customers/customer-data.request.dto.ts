import { IsOptional, IsString } from 'class-validator';
import { WholeNumber } from '../platform/request-validation';

/** `GET /api/data/customers/{external_id}/export/`: no parameters but the token (the form is the Accept header). */
export class CustomerExportQuery {
  @IsOptional()
  @IsString({ message: 'access-token must be given once' })
  'access-token'?: string;
}

/** `GET /api/data/customers/{external_id}/consent/?from=&limit=` */
export class CustomerConsentQuery extends CustomerExportQuery {
  @WholeNumber('from', 0, Number.MAX_SAFE_INTEGER, 'from must be how many consent changes to skip (a whole number), as next_url gives it')
  from?: number;

  @WholeNumber('limit', 1, 1000, 'limit must be a whole number from 1 to 1000 (100 when absent)')
  limit?: number;
}
