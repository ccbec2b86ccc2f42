import { DynamicModule, Global, Module, type Type } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { RuntimeModule, type Runtime } from '#mds/runtime';
import { AccessHttpModule } from './access/access.http.module';
import { ActivityHttpModule } from './activity/activity.http.module';
import { AuditHttpModule } from './audit/audit.http.module';
import { CampaignsHttpModule } from './campaigns/campaigns.http.module';
import { CatalogHttpModule } from './catalog/catalog.http.module';
import { CustomersHttpModule } from './customers/customers.http.module';
import { DatatargetsHttpModule } from './datatargets/datatargets.http.module';
import { HealthHttpController } from './health/health.http.controller';
import { ImportsHttpModule } from './imports/imports.http.module';
import { SalesHttpModule } from './sales/sales.http.module';
import { SettingsHttpModule } from './settings/settings.http.module';
import { ServiceMetrics } from './metrics/metrics';
import { MetricsHttpController } from './metrics/metrics.http.controller';
import { METRICS } from './platform/tokens';

/** The process's metrics, for the metrics controller. */
@Global()
@Module({})
class MetricsModule {
  static forRoot(metrics: ServiceMetrics): DynamicModule {
    return { module: MetricsModule, providers: [{ provide: METRICS, useValue: metrics }], exports: [METRICS] };
  }
}

export type ApiContextModules = Array<Type<unknown> | DynamicModule>;

/**
 * The bounded contexts' HTTP modules: each declares its controllers and imports its context's
 * module (libs/<context>), whose command handlers its controllers reach through the CommandBus.
 */
export const CONTEXT_MODULES: ApiContextModules = [
  AccessHttpModule,
  SettingsHttpModule,
  ImportsHttpModule,
  CustomersHttpModule,
  CatalogHttpModule,
  ActivityHttpModule,
  SalesHttpModule,
  CampaignsHttpModule,
  DatatargetsHttpModule,
  AuditHttpModule,
];

@Module({})
export class ApiModule {
  static forRoot(runtime: Runtime, metrics: ServiceMetrics, contexts: ApiContextModules = CONTEXT_MODULES): DynamicModule {
    return {
      module: ApiModule,
      imports: [RuntimeModule.forRoot(runtime), MetricsModule.forRoot(metrics), CqrsModule.forRoot(), ...new Set([...CONTEXT_MODULES, ...contexts])],
      controllers: [HealthHttpController, MetricsHttpController],
    };
  }
}
