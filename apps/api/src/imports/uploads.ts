import type { FastifyRequest } from 'fastify';
import { ImportEventsCommand } from '#mds/activity';
import { ImportCampaignEventsCommand, ImportCampaignsCommand } from '#mds/campaigns';
import { ImportProductsCommand } from '#mds/catalog';
import { ImportCustomersCommand } from '#mds/customers';
import { coerceBoolean, recordsOf, type ImportRequest } from '#mds/imports';
import { invalidRequest } from '#mds/platform';
import { ImportSalesCommand } from '#mds/sales';
import { ImportShopsCommand } from '#mds/settings';

/** One datatype's import over HTTP: the body's key, whether a bare JSON list is accepted, its command. */
interface UploadRoute {
  bodyKey: string;
  allowBareList: boolean;
  command(request: ImportRequest): object;
}

/**
 * Every datatype that can be imported. The upload endpoints, their PUT spellings and the legacy
 * `POST /api/datasources/{id}/import/` all build their command here, so they answer alike.
 */
const UPLOAD_ROUTES: Record<string, UploadRoute> = {
  customers: { bodyKey: 'customers', allowBareList: false, command: (r) => new ImportCustomersCommand(r) },
  products: { bodyKey: 'products', allowBareList: false, command: (r) => new ImportProductsCommand(r) },
  // The reference wraps events as {events: [...]}; the integration guide sends a bare list.
  events: { bodyKey: 'events', allowBareList: true, command: (r) => new ImportEventsCommand(r) },
  sales: { bodyKey: 'sales', allowBareList: false, command: (r) => new ImportSalesCommand(r) },
  shops: { bodyKey: 'shops', allowBareList: false, command: (r) => new ImportShopsCommand(r) },
  campaigns: { bodyKey: 'campaigns', allowBareList: false, command: (r) => new ImportCampaignsCommand(r) },
  campaign_events: { bodyKey: 'events', allowBareList: false, command: (r) => new ImportCampaignEventsCommand(r) },
};

/** The import command of a request: its records, `?atomic`, `Idempotency-Key`, the caller. */
export function uploadCommand(datatype: string, request: FastifyRequest, body: unknown): object {
  const route = UPLOAD_ROUTES[datatype];
  if (!route) throw new Error(`no upload route for ${datatype}`);
  const query = request.query as Record<string, unknown>;
  let atomic: boolean | undefined;
  try {
    atomic = coerceBoolean(query.atomic);
  } catch {
    throw invalidRequest('atomic must be true or false');
  }
  const key = request.headers['idempotency-key'];
  if (Array.isArray(key)) throw invalidRequest('send one Idempotency-Key');
  return route.command({
    records: recordsOf(body, route.bodyKey, route.allowBareList),
    atomic: atomic === true,
    idempotencyKey: key?.trim() || undefined,
    caller: request.principal!.ownerId,
    tokenId: request.principal!.tokenId,
    requestId: request.id,
  });
}
