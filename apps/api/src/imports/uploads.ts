import type { FastifyRequest } from 'fastify';
import { EVENT_DELETION_RECORD, EVENT_RECORD, ImportEventsCommand } from '#mds/activity';
import { CAMPAIGN_EVENT_RECORD, CAMPAIGN_RECORD, ImportCampaignEventsCommand, ImportCampaignsCommand } from '#mds/campaigns';
import { ImportProductsCommand, PRODUCT_RECORD } from '#mds/catalog';
import { CUSTOMER_RECORD, ImportCustomersCommand } from '#mds/customers';
import { coerceBoolean, recordsOf, type ImportRequest, type RecordTable } from '#mds/imports';
import { invalidRequest } from '#mds/platform';
import { ImportSalesCommand, SALE_RECORD } from '#mds/sales';
import { ImportShopsCommand, SHOP_RECORD } from '#mds/settings';

/** One datatype's import over HTTP: the body's key, whether a bare JSON list is accepted, its records' tables, its command. */
export interface UploadRoute {
  bodyKey: string;
  allowBareList: boolean;
  /** The records the body's list takes (the OpenAPI document's record schemas are made from them). */
  records: readonly RecordTable[];
  command(request: ImportRequest): object;
}

/**
 * Every datatype that can be imported. The upload endpoints, their PUT spellings and the legacy
 * `POST /api/datasources/{id}/import/` all build their command here, so they answer alike.
 */
export const UPLOAD_ROUTES = {
  customers: { bodyKey: 'customers', allowBareList: false, records: [CUSTOMER_RECORD], command: (r) => new ImportCustomersCommand(r) },
  products: { bodyKey: 'products', allowBareList: false, records: [PRODUCT_RECORD], command: (r) => new ImportProductsCommand(r) },
  // The reference wraps events as {events: [...]}; the integration guide sends a bare list.
  events: { bodyKey: 'events', allowBareList: true, records: [EVENT_RECORD, EVENT_DELETION_RECORD], command: (r) => new ImportEventsCommand(r) },
  sales: { bodyKey: 'sales', allowBareList: false, records: [SALE_RECORD], command: (r) => new ImportSalesCommand(r) },
  shops: { bodyKey: 'shops', allowBareList: false, records: [SHOP_RECORD], command: (r) => new ImportShopsCommand(r) },
  campaigns: { bodyKey: 'campaigns', allowBareList: false, records: [CAMPAIGN_RECORD], command: (r) => new ImportCampaignsCommand(r) },
  campaign_events: { bodyKey: 'events', allowBareList: false, records: [CAMPAIGN_EVENT_RECORD], command: (r) => new ImportCampaignEventsCommand(r) },
} satisfies Record<string, UploadRoute>;

export type UploadDatatype = keyof typeof UPLOAD_ROUTES;

/** A boolean query parameter of an upload (`?atomic`, `?dry_run`): absent is false. */
function flag(query: Record<string, unknown>, name: string): boolean {
  try {
    return coerceBoolean(query[name]) === true;
  } catch {
    throw invalidRequest(`${name} must be true or false`);
  }
}

/** The import command of a request: its records, `?atomic`, `?dry_run`, `Idempotency-Key`, the caller. */
export function uploadCommand(datatype: string, request: FastifyRequest, body: unknown): object {
  const route: UploadRoute | undefined = UPLOAD_ROUTES[datatype as UploadDatatype];
  if (!route) throw new Error(`no upload route for ${datatype}`);
  const query = request.query as Record<string, unknown>;
  const atomic = flag(query, 'atomic');
  const dryRun = flag(query, 'dry_run');
  const key = request.headers['idempotency-key'];
  if (Array.isArray(key)) throw invalidRequest('send one Idempotency-Key');
  return route.command({
    records: recordsOf(body, route.bodyKey, route.allowBareList),
    atomic,
    dryRun,
    idempotencyKey: key?.trim() || undefined,
    caller: request.principal!.ownerId,
    tokenId: request.principal!.tokenId,
    requestId: request.id,
  });
}
