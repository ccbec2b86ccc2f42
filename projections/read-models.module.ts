import { Global, Module, type DynamicModule, type Provider } from '@nestjs/common';
import type { AuditSigner } from '#mds/platform';
import { ACCESS_READ_MODEL, AccessReadModel } from './access/access.read-model';
import { AUDIT_READ_MODEL, AuditReadModel } from './audit/audit.read-model';
import { CAMPAIGNS_READ_MODEL, CampaignsReadModel } from './campaigns/campaigns.read-model';
import { CUSTOMERS_READ_MODEL, CustomersReadModel } from './customers/customers.read-model';
import { DATATARGETS_READ_MODEL, DatatargetsReadModel } from './datatargets/datatargets.read-model';
import { EVENTS_READ_MODEL, EventsReadModel } from './events/events.read-model';
import { EXPORT_READ_MODEL, ExportReadModel } from './export/export.read-model';
import { PRODUCTS_READ_MODEL, ProductsReadModel } from './products/products.read-model';
import { RUNS_READ_MODEL, RunsReadModel } from './runs/runs.read-model';
import { SALES_READ_MODEL, SalesReadModel } from './sales/sales.read-model';
import { SETTINGS_READ_MODEL, SettingsReadModel } from './settings/settings.read-model';
import { SHOPS_READ_MODEL, ShopsReadModel } from './shops/shops.read-model';
import type { Projection } from './runtime/projection';
import { READ_MODEL_PROGRESS, ReadModelProgress } from './runtime/read-model-progress';
import type { ReadDeps } from './runtime/read-side';
import { SERVICE_STATUS, ServiceStatus } from './runtime/service-status';

/** What the read side is built from (the composition root's Runtime has all of it). */
export interface ReadModelDeps extends ReadDeps {
  projections: Projection[];
  auditSigner(): AuditSigner;
  /** Set when the database is the embedded PostgreSQL (`/health` says so). */
  embedded?: unknown;
}

/** Every query class, built from the read side's database and the log. */
export function readModels(deps: ReadModelDeps) {
  return {
    access: new AccessReadModel(deps),
    audit: new AuditReadModel(deps),
    campaigns: new CampaignsReadModel(deps),
    customers: new CustomersReadModel(deps),
    datatargets: new DatatargetsReadModel(deps),
    events: new EventsReadModel(deps),
    export: new ExportReadModel(deps),
    products: new ProductsReadModel(deps),
    runs: new RunsReadModel(deps),
    sales: new SalesReadModel(deps),
    settings: new SettingsReadModel(deps),
    shops: new ShopsReadModel(deps),
    progress: new ReadModelProgress(deps),
    status: new ServiceStatus(deps),
  };
}

export type ReadModels = ReturnType<typeof readModels>;

const TOKENS: Record<keyof ReadModels, symbol> = {
  access: ACCESS_READ_MODEL,
  audit: AUDIT_READ_MODEL,
  campaigns: CAMPAIGNS_READ_MODEL,
  customers: CUSTOMERS_READ_MODEL,
  datatargets: DATATARGETS_READ_MODEL,
  events: EVENTS_READ_MODEL,
  export: EXPORT_READ_MODEL,
  products: PRODUCTS_READ_MODEL,
  runs: RUNS_READ_MODEL,
  sales: SALES_READ_MODEL,
  settings: SETTINGS_READ_MODEL,
  shops: SHOPS_READ_MODEL,
  progress: READ_MODEL_PROGRESS,
  status: SERVICE_STATUS,
};

/**
 * The read side's door: each query class under its token (`@Inject(CUSTOMERS_READ_MODEL)`), for
 * controllers and the CLI. Nothing that injects them sees the pool or the event log.
 */
@Global()
@Module({})
export class ReadModelsModule {
  static forRoot(deps: ReadModelDeps): DynamicModule {
    const models = readModels(deps);
    const providers: Provider[] = (Object.keys(TOKENS) as Array<keyof ReadModels>).map((name) => ({ provide: TOKENS[name], useValue: models[name] }));
    return { module: ReadModelsModule, providers, exports: Object.values(TOKENS) };
  }
}
