import type { DataQuery } from '../libs/imports/src';
import type { Projection } from './runtime/projection';
import type { QueryTable } from './runtime/data-query-sql';
import { CUSTOMERS_QUERY_TABLE } from './customers/customers.queries';
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

export * from './runtime/projection';
export * from './runtime/catalog';
export * from './runtime/projection-runner';
export * from './runtime/projector';
export * from './runtime/consistency';
export { accessProjection } from './access/access.projection';
export { countUsers, findDatasource, findIntegration, findTokenByHash, listDatasources, listIntegrations, type TokenRecord } from './access/access.queries';
export { shopsProjection } from './shops/shops.projection';
export { customersMerge, customersProjection } from './customers/customers.projection';
export { listCustomers } from './customers/customers.queries';
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

/** The read model a bulk update (POST /api/data/query/) of each datatype reaches. */
export const DATA_QUERY_TABLES: Record<DataQuery['datatype'], QueryTable> = {
  customers: CUSTOMERS_QUERY_TABLE,
  products: PRODUCTS_QUERY_TABLE,
  events: EVENTS_QUERY_TABLE,
  sales: SALES_QUERY_TABLE,
};

/** Every read model of the service. Later contexts add theirs here. */
export const PROJECTIONS: Projection[] = [streamsProjection, accessProjection, shopsProjection, customersProjection, productsProjection, eventsProjection, salesProjection, datatargetsProjection, datasyncProjection];

/** The read models each kind of import run feeds (a run is `completed` once all of them have passed it). */
export const IMPORT_PROJECTIONS: Record<string, string[]> = {
  shops: ['shops'],
  customers: ['customers'],
  products: ['products'],
  // Events change customers (subscriptions) and may create products (linking); sales may create products.
  events: ['events', 'customers', 'products'],
  sales: ['sales', 'products'],
};

/** The read models a bulk update of each datatype changes. */
export const QUERY_PROJECTIONS: Record<DataQuery['datatype'], string[]> = { customers: ['customers'], products: ['products'], events: ['events'], sales: ['sales'] };
