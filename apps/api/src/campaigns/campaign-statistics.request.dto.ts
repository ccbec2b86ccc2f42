import { IsIn, IsOptional, IsString } from 'class-validator';
import type { CampaignCursor } from '#mds/projections';
import { Satisfies, WholeNumber } from '../platform/request-validation';

/** The `next` of a page: where the next one starts (opaque to clients). */
export const encodeCursor = (cursor: CampaignCursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

export function decodeCursor(value: unknown): CampaignCursor | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const c = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(c) && c.length === 2 && (c[0] === null || (typeof c[0] === 'string' && !Number.isNaN(Date.parse(c[0])))) && typeof c[1] === 'string') return c as CampaignCursor;
  } catch {
    // not a cursor
  }
  return undefined;
}

const LIMIT = 'limit must be a whole number from 1 to 100 (30 when absent); fetch more pages with next';

/** `GET /api/campaign/actions/?keys=&limit=&order=&from=` */
export class CampaignStatisticsQuery {
  @IsOptional()
  @IsString({ message: 'keys must be given once: campaign keys separated by commas' })
  keys?: string;

  @WholeNumber('limit', 1, 100, LIMIT)
  limit?: number;

  @IsOptional()
  @IsIn(['ascending', 'descending'], { message: 'order must be ascending or descending' })
  order?: 'ascending' | 'descending';

  @IsOptional()
  @Satisfies((v) => v === '' || decodeCursor(v) !== undefined, () => 'from must be the next of an earlier page')
  from?: string;

  @IsOptional()
  @IsString({ message: 'access-token must be given once' })
  'access-token'?: string;
}
