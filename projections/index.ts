import type { DataQuery } from '#mds/imports';
import { loadSettings, type Settings } from '#mds/settings';
import { caughtUp, type ReadDeps } from './runtime/read-side';
import { projectionStatuses } from './runtime/projector';
import { countMatches } from './runtime/data-query-sql';
import { existingEventIds } from './events/events.queries';
import { knownSaleTransactions, saleRowsNow } from './sales/sales.queries';
import type { Projection } from './runtime/projection';
import type { QueryTable } from './runtime/data-query-sql';
import { CUSTOMERS_QUERY_TABLE, erasedIdentifiers } from './customers/customers.queries';
import { activeTokenIds } from './access/access.queries';
import { EVENTS_QUERY_TABLE } from './events/events.queries';
import { PRODUCTS_QUERY_TABLE } from './products/products.queries';
import { SALES_QUERY_TABLE } from './sales/sales.queries';
import { accessProjection } from './access/access.projection';
import { customersProjection } from './customers/customers.projection';
import { eventsProjection } from './events/events.projection';
import { salesProjection } from './sales/sales.projection';
import { datatargetsProjection } from './datatargets/datatargets.projection';
import { datasyncProjection } from './datasync/datasync.projection';
import { productsProjection } from './products/products.projection';
import { shopsProjection } from './shops/shops.projection';
import { streamsProjection } from './streams/streams.projection';
import { campaignsProjection } from './campaigns/campaigns.projection';

export * from './runtime/projection';
export * from './runtime/catalog';
export * from './runtime/projection-runner';
export * from './runtime/projector';
export * from './runtime/parking';
export * from './runtime/consistency';
export * from './runtime/read-side';
export { ReadPools, readingAfter, type ReadNeeds, type ReadRoute, type ReadSource } from './runtime/read-pools';
export type { Replica, ReplicaState, ReplicaStatus } from './runtime/replica-monitor';
export * from './runtime/replay';
export { IMPORT_PROJECTIONS, QUERY_PROJECTIONS, runStatus } from './runs/runs.queries';
export { auditEvent, auditEvents, type AuditEvent } from './audit/audit.queries';
export {
  appendCheckpoint,
  AUDIT_CHAIN_STREAM,
  AUDIT_CHECKPOINTED,
  canonicalJson,
  chainHash,
  chainPointAt,
  exportLines,
  GENESIS,
  verifyExport,
  type ExportProgress,
  type SignedPoint,
  type VerifyResult,
} from './audit/audit-export';
export { ACCESS_CHANNEL, accessProjection } from './access/access.projection';
export { activeTokenIds, authenticateToken, countUsers, findAccessToken, findDatasource, findIntegration, findTokenByHash, listAccessTokens, listDatasources, listIntegrations, listUsers, type AccessTokenListed, type IntegrationToken, type RateCount, type TokenRecord, type UserListed } from './access/access.queries';
export { shopsProjection } from './shops/shops.projection';
export { streamsProjection } from './streams/streams.projection';
export { customersProjection } from './customers/customers.projection';
export { customersMerge } from './customers/merge/merge-waves';
export { customerViewSql, findLiveCustomer, listCustomers } from './customers/customers.queries';
export { customerHistory, customerView, type CustomerChange, type CustomerHistory } from './customers/customer-history';
export { customerConsent, type ConsentChange } from './customers/customer-consent';
export { EXPORT_JSON_MAX_RECORDS, customerExportDocument, customerExportLines, openCustomerExport, type CustomerExport, type CustomerExportSection } from './customers/customer-export';
export { productsProjection } from './products/products.projection';
export { listProducts } from './products/products.queries';
export { listShops } from './shops/shops.queries';
export { eventsProjection } from './events/events.projection';
export { listEvents, existingEventIds } from './events/events.queries';
export { salesProjection } from './sales/sales.projection';
export { listSales, knownSaleTransactions } from './sales/sales.queries';
export * from './runtime/data-query-sql';
export { datatargetsProjection, OUTLETS_CHANNEL } from './datatargets/datatargets.projection';
export { datasyncProjection } from './datasync/datasync.projection';
export * from './datatargets/datatargets.queries';
export { campaignsProjection } from './campaigns/campaigns.projection';
export { listCampaigns, type CampaignCursor } from './campaigns/campaigns.queries';
export type { SalesBound, SalesRange } from './campaigns/campaigns.queries';
export { STATS_FROM_SCRATCH as CAMPAIGN_STATS_FROM_SCRATCH } from './campaigns/campaign-stats.sql';

/** The read model a bulk update (POST /api/data/query/) of each datatype reaches. */
export const DATA_QUERY_TABLES: Record<DataQuery['datatype'], QueryTable> = {
  customers: CUSTOMERS_QUERY_TABLE,
  products: PRODUCTS_QUERY_TABLE,
  events: EVENTS_QUERY_TABLE,
  sales: SALES_QUERY_TABLE,
};

/** Every read model of the service. Later contexts add theirs here. */
export const PROJECTIONS: Projection[] = [streamsProjection, accessProjection, shopsProjection, customersProjection, productsProjection, eventsProjection, salesProjection, campaignsProjection, datatargetsProjection, datasyncProjection];

/** The settings as they stand (read from the `settings` stream: a handful of events). */
export async function currentSettings(read: ReadDeps): Promise<Settings> {
  return (await loadSettings(read.store)).settings;
}

/** Read-model ports of the command handlers (see the handlers' tokens), answered from these read models. */
export const readModelPorts = (read: ReadDeps) => ({
  knownEventIds: (ids: number[]) => caughtUp(read, 'events', () => existingEventIds(read.pool, ids), (found) => found.size === ids.length),
  knownSaleTransactions: (ids: string[]) => caughtUp(read, 'sales', () => knownSaleTransactions(read.pool, ids), (found) => found.size === ids.length),
  knownSalesNow: (ids: string[]) => knownSaleTransactions(read.pool, ids),
  saleRowsNow: (ids: string[]) => saleRowsNow(read.pool, ids),
  dataQueryMatches: (query: DataQuery) => countMatches(read.pool, query.match, DATA_QUERY_TABLES[query.datatype]),
  erasedIdentifiers: erasedIdentifiers(read.pool),
  ownerTokens: (ownerId: string) => activeTokenIds(read, ownerId),
});

/** The log's head and every projection's checkpoint and lag, as `/metrics` reports them. */
export async function readSideStatus(read: ReadDeps, projections: Projection[]) {
  const [statuses, head] = await Promise.all([projectionStatuses(read.pool, read.store, projections), read.store.headPosition()]);
  return { head, statuses };
}
export { EXPIRED_MESSAGE, expireDeliveredMessages } from './datatargets/retention';

// The read side's door: a query class per read model, by token (ReadModelsModule provides them).
export { ReadModelsModule, readModels, type ReadModelDeps, type ReadModels } from './read-models.module';
export { ACCESS_READ_MODEL, AccessReadModel } from './access/access.read-model';
export { AUDIT_READ_MODEL, AuditReadModel } from './audit/audit.read-model';
export { CAMPAIGNS_READ_MODEL, CampaignsReadModel } from './campaigns/campaigns.read-model';
export { CUSTOMERS_READ_MODEL, CustomersReadModel } from './customers/customers.read-model';
export { DATATARGETS_READ_MODEL, DatatargetsReadModel } from './datatargets/datatargets.read-model';
export { EVENTS_READ_MODEL, EventsReadModel } from './events/events.read-model';
export { EXPORT_READ_MODEL, ExportReadModel } from './export/export.read-model';
export { EXPORT_DATATYPES, EXPORT_WITH_DELETED, type ExportDatatype, type ExportPage, type ExportPageOptions } from './export/export.queries';
export { PRODUCTS_READ_MODEL, ProductsReadModel } from './products/products.read-model';
export { RUNS_READ_MODEL, RunsReadModel } from './runs/runs.read-model';
export { SALES_READ_MODEL, SalesReadModel } from './sales/sales.read-model';
export { SETTINGS_CHANNEL, SETTINGS_READ_MODEL, SettingsReadModel } from './settings/settings.read-model';
export { SHOPS_READ_MODEL, ShopsReadModel } from './shops/shops.read-model';
export { READ_MODEL_PROGRESS, ReadModelProgress } from './runtime/read-model-progress';
export { SERVICE_STATUS, ServiceStatus, type ServiceHealth } from './runtime/service-status';
