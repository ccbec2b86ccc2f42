import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { isIsoTime, Satisfies, WholeNumber } from '../platform/request-validation';


/** `GET /api/audit/events/`: the log in position order, filtered. */
export class AuditEventsQuery {
  @WholeNumber('from', 0, Number.MAX_SAFE_INTEGER, 'from must be a log position (a whole number, 0 or more): events after it are listed')
  from?: number;

  @WholeNumber('limit', 1, 1000, 'limit must be a whole number from 1 to 1000 (100 when absent)')
  limit?: number;

  /** Event types, comma-separated. */
  @IsOptional()
  @Matches(/^[A-Za-z][A-Za-z0-9_]*(,[A-Za-z][A-Za-z0-9_]*)*$/, { message: 'type must be event types separated by commas, e.g. CustomersImported,DataQueryAccepted' })
  type?: string;

  @IsOptional()
  @IsString({ message: 'stream must be given once' })
  @MaxLength(300, { message: 'stream is at most 300 characters' })
  stream?: string;

  @IsOptional()
  @IsString({ message: 'stream_prefix must be given once' })
  @MaxLength(300, { message: 'stream_prefix is at most 300 characters' })
  stream_prefix?: string;

  @IsOptional()
  @Satisfies(isIsoTime, () => 'since must be an ISO 8601 date or time, e.g. 2026-03-01T00:00:00Z')
  since?: string;

  @IsOptional()
  @Satisfies(isIsoTime, () => 'until must be an ISO 8601 date or time, e.g. 2026-03-01T00:00:00Z')
  until?: string;

  /** `users/<id>` or `integrations/<id>`. */
  @IsOptional()
  @Matches(/^(users|integrations)\/[A-Za-z0-9-]{1,64}$|^[a-z-]{1,40}$/, { message: 'actor must be users/<id>, integrations/<id> or a part of the service (e.g. outlet-worker)' })
  actor?: string;

  @IsOptional()
  @IsString({ message: 'access-token must be given once' })
  'access-token'?: string;
}
