import { isUtf8 } from 'node:buffer';
import type { FastifyRequest } from 'fastify';
import { coerceDateTime, CoercionError } from '#mds/imports';
import { invalidRequest } from '#mds/platform';
import { listFilters, type FilterContext, type ListQuery } from './filters';

/**
 * A data list's page: `limit` (default 100, max 10,000), `after` (an opaque cursor from next_url), and
 * its filters, normalised as the import normalises their fields (see listFilters).
 */
export function dataPage(query: Record<string, unknown>, list: ListQuery, context: FilterContext): { limit: number; after?: string; filters: Record<string, string> } {
  const rawLimit = query.limit;
  const limit = rawLimit === undefined || rawLimit === '' ? 100 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw invalidRequest('limit must be a whole number from 1 to 10000');
  let after: string | undefined;
  if (typeof query.after === 'string' && query.after !== '') {
    const bytes = Buffer.from(query.after, 'base64url');
    after = bytes.toString('utf8');
    // Only what nextUrl wrote: text (no NUL, which PostgreSQL cannot take), encoded as it encodes it.
    if (after === '' || !isUtf8(bytes) || after.includes('\0') || bytes.toString('base64url') !== query.after) throw invalidRequest('after is not a cursor from next_url');
  }
  return { limit, after, filters: listFilters(query, list, context) };
}

/**
 * A page's `next_url`: the same request with `after` set to the cursor, or null on the last page (no
 * cursor), so clients can tell the last page from a missing field. A request that authenticated by
 * its `access-token` parameter keeps it: a reader that authenticates by URL follows next_url unchanged.
 */
export function nextUrl(request: FastifyRequest, cursor: string | null): string | null {
  if (cursor === null) return null;
  return withParam(request, 'after', Buffer.from(cursor).toString('base64url'));
}

/** The request's path and query with one parameter set (the others, `access-token` among them, kept). */
export function withParam(request: FastifyRequest, name: string, value: string): string {
  const url = new URL(request.url, 'http://placeholder');
  url.searchParams.set(name, value);
  return `${url.pathname}${url.search}`;
}

/** A date bound of a retrieval query (`from`, `to`, `updated_since`): a date or timestamp, the settings' zone when it has none. */
export function dateBound(name: string, value: string | undefined, timeZone: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  try {
    return coerceDateTime(value, timeZone);
  } catch (err) {
    if (err instanceof CoercionError) throw invalidRequest(`${name}: ${err.message}`);
    throw err;
  }
}
