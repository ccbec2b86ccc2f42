import { IsIn, IsOptional, IsString } from 'class-validator';
import { coerceDateTime, DATE_PATTERN, DATETIME_PATTERN } from '#mds/imports';
import type { CampaignCursor, SalesBound } from '#mds/projections';
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
  @Satisfies((v) => v === '' || salesBound(v) !== undefined, (v) => boundProblem('sales_start', v))
  sales_start?: string;

  @IsOptional()
  @Satisfies((v) => v === '' || salesBound(v) !== undefined, (v) => boundProblem('sales_end', v))
  sales_end?: string;

  @IsOptional()
  @IsString({ message: 'access-token must be given once' })
  'access-token'?: string;
}

const DATE = new RegExp(DATE_PATTERN);
const DATETIME = new RegExp(DATETIME_PATTERN);

/**
 * `sales_start`/`sales_end` as the query reads them: a date is a day in the settings' time zone; a
 * timestamp with an offset (or Z) an instant; one without a wall-clock time in that zone. Undefined
 * when the value is none of these (an impossible date or time, an offset beyond ±18:00, a year
 * outside 0001–9999).
 */
export function salesBound(value: unknown): SalesBound | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const raw = value.trim();
  try {
    coerceDateTime(raw, 'UTC');
  } catch {
    return undefined;
  }
  if (DATE.test(raw)) return { kind: 'day', value: raw };
  const m = DATETIME.exec(raw)!;
  const wall = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${m[7] ? `.${m[7]}` : ''}`;
  if (!m[8]) return { kind: 'local', value: wall };
  return { kind: 'instant', value: wall + (m[8].toUpperCase() === 'Z' ? '+00:00' : `${m[8].slice(0, 3)}:${m[8].slice(-2)}`) };
}

function boundProblem(name: string, value: unknown): string {
  const what = `${name} must be a date (2026-03-01, a day in the settings' time zone) or an ISO 8601 timestamp (2026-03-01T12:00:00Z; without an offset, in that zone)`;
  if (typeof value !== 'string') return `${name} must be given once`;
  try {
    coerceDateTime(value.trim(), 'UTC');
  } catch (err) {
    return `${what}: ${(err as Error).message}`;
  }
  return what;
}

const DAILY_LIMIT = 'limit must be a whole number from 1 to 1000 (100 when absent); fetch more days with next';

/** `GET /api/campaign/actions/{campaign_key}/daily/?limit=&from=` */
export class CampaignDailyQuery {
  @WholeNumber('limit', 1, 1000, DAILY_LIMIT)
  limit?: number;

  @IsOptional()
  @Satisfies((v) => v === '' || (typeof v === 'string' && salesBound(v)?.kind === 'day'), () => 'from must be a date YYYY-MM-DD: the first day wanted, or the next of an earlier page')
  from?: string;

  @IsOptional()
  @IsString({ message: 'access-token must be given once' })
  'access-token'?: string;
}
