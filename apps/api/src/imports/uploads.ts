import type { FastifyRequest } from 'fastify';
import { eventImport } from '../../../../libs/activity/src';
import { productImport } from '../../../../libs/catalog/src';
import { customerImport } from '../../../../libs/customers/src';
import type { EventStore } from '../../../../libs/event-store/src';
import { recordsOf, type ImportAnswer, type ImportKind } from '../../../../libs/imports/src';
import type { Runtime } from '../../../../libs/runtime/src';
import { saleImport } from '../../../../libs/sales/src';
import { loadSettings, type Settings } from '../../../../libs/settings/src';
import { existingEventIds, knownSaleTransactions, waitForProjection } from '../../../../projections';
import { handleImport } from './import-answer';

/** What an import kind may need besides the settings: the log, the read models, the caller. */
export interface UploadDeps {
  store: EventStore;
  runtime: Runtime;
}
type UploadContext = UploadDeps & { actor: string };

/** One datatype's import: the body's key, whether a bare JSON list is accepted, its import kind. */
export interface UploadRoute {
  datatype: string;
  bodyKey: string;
  allowBareList: boolean;
  kind(settings: Settings, ctx: UploadContext): ImportKind<unknown>;
}

/**
 * Every datatype that can be imported. The upload endpoints, their PUT spellings and the legacy
 * `POST /api/datasources/{id}/import/` all go through `upload`, so they answer alike.
 */
export const UPLOAD_ROUTES: Record<string, UploadRoute> = {
  customers: { datatype: 'customers', bodyKey: 'customers', allowBareList: false, kind: (s) => customerImport(s) as ImportKind<unknown> },
  products: { datatype: 'products', bodyKey: 'products', allowBareList: false, kind: (s) => productImport(s) as ImportKind<unknown> },
  // The reference wraps events as {events: [...]}; the integration guide sends a bare list.
  events: {
    datatype: 'events',
    bodyKey: 'events',
    allowBareList: true,
    kind: (s, ctx) =>
      eventImport(s, { store: ctx.store, actor: ctx.actor, knownEventIds: (ids) => caughtUp(ctx, 'events', () => existingEventIds(ctx.runtime.pool, ids), (m) => m.size === ids.length) }) as ImportKind<unknown>,
  },
  sales: {
    datatype: 'sales',
    bodyKey: 'sales',
    allowBareList: false,
    kind: (s, ctx) => saleImport(s, { knownTransactions: (ids) => caughtUp(ctx, 'sales', () => knownSaleTransactions(ctx.runtime.pool, ids), (m) => m.size === ids.length) }) as ImportKind<unknown>,
  },
};

/**
 * A read-model lookup a command depends on (deleting event ids, a sale's earlier import): when the
 * answer is incomplete, the read model may lag behind what the client was already told is stored,
 * so it is asked again once the projection has reached the log's head (at most 5 s).
 */
async function caughtUp<T>(ctx: UploadContext, projection: string, lookup: () => Promise<T>, complete: (found: T) => boolean): Promise<T> {
  const found = await lookup();
  if (complete(found)) return found;
  try {
    await waitForProjection(ctx.runtime.pool, projection, await ctx.store.headPosition(), { timeoutMs: 5000, notifications: ctx.runtime.notifications });
  } catch {
    return found; // still behind: answer from what is there (the records are reported, not lost)
  }
  return lookup();
}

export async function upload(datatype: string, deps: UploadDeps, request: FastifyRequest, body: unknown): Promise<ImportAnswer> {
  const route = UPLOAD_ROUTES[datatype];
  if (!route) throw new Error(`no upload route for ${datatype}`);
  const { settings } = await loadSettings(deps.store);
  return handleImport(deps.store, route.kind(settings, { ...deps, actor: request.principal!.ownerId }), request, recordsOf(body, route.bodyKey, route.allowBareList));
}
