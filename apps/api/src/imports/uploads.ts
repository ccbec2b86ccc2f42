import type { FastifyRequest } from 'fastify';
import { productImport } from '../../../../libs/catalog/src';
import { customerImport } from '../../../../libs/customers/src';
import type { EventStore } from '../../../../libs/event-store/src';
import { recordsOf, type ImportAnswer, type ImportKind } from '../../../../libs/imports/src';
import type { Runtime } from '../../../../libs/runtime/src';
import { loadSettings, type Settings } from '../../../../libs/settings/src';
import { handleImport } from './import-answer';

/** What an import kind may need besides the settings: the log and the read models. */
export interface UploadDeps {
  store: EventStore;
  runtime: Runtime;
}

/** One datatype's import: the body's key, whether a bare JSON list is accepted, its import kind. */
export interface UploadRoute {
  datatype: string;
  bodyKey: string;
  allowBareList: boolean;
  kind(settings: Settings, deps: UploadDeps): ImportKind<unknown>;
}

/**
 * Every datatype that can be imported. The upload endpoints, their PUT spellings and the legacy
 * `POST /api/datasources/{id}/import/` all go through `upload`, so they answer alike.
 */
export const UPLOAD_ROUTES: Record<string, UploadRoute> = {
  customers: { datatype: 'customers', bodyKey: 'customers', allowBareList: false, kind: (s) => customerImport(s) as ImportKind<unknown> },
  products: { datatype: 'products', bodyKey: 'products', allowBareList: false, kind: (s) => productImport(s) as ImportKind<unknown> },
};

export async function upload(datatype: string, deps: UploadDeps, request: FastifyRequest, body: unknown): Promise<ImportAnswer> {
  const route = UPLOAD_ROUTES[datatype];
  if (!route) throw new Error(`no upload route for ${datatype}`);
  const { settings } = await loadSettings(deps.store);
  return handleImport(deps.store, route.kind(settings, deps), request, recordsOf(body, route.bodyKey, route.allowBareList));
}
