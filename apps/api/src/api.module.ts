import { DynamicModule, Global, Module, type Type } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import type { Logger } from '#mds/platform';
import { ReadModelsModule, SERVICE_STATUS, type ServiceStatus } from '#mds/projections';
import { RuntimeModule, type Runtime } from '#mds/runtime';
import { ReadYourWrites } from './access/read-your-writes';
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
import { API_LOGGER, METRICS } from './platform/tokens';

/** What every HTTP module shares: the process's metrics, the API's logger, read-your-writes. */
@Global()
@Module({})
class ApiPlatformModule {
  static forRoot(logger: Logger): DynamicModule {
    return {
      module: ApiPlatformModule,
      providers: [
        { provide: METRICS, useFactory: (status: ServiceStatus) => new ServiceMetrics(status), inject: [SERVICE_STATUS] },
        { provide: API_LOGGER, useValue: logger },
        ReadYourWrites,
      ],
      exports: [METRICS, API_LOGGER, ReadYourWrites],
    };
  }
}

export type ApiContextModules = Array<Type<unknown> | DynamicModule>;

/**
 * The bounded contexts' HTTP modules: each declares its controllers and imports its context's
 * module (libs/<context>), whose command handlers its controllers reach through the CommandBus;
 * they read through the query classes of ReadModelsModule, by token.
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
  static forRoot(runtime: Runtime, logger: Logger, contexts: ApiContextModules = CONTEXT_MODULES): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        RuntimeModule.forRoot(runtime),
        ReadModelsModule.forRoot(runtime),
        ApiPlatformModule.forRoot(logger),
        CqrsModule.forRoot(),
        ...new Set([...CONTEXT_MODULES, ...contexts]),
      ],
      controllers: [HealthHttpController, MetricsHttpController],
    };
  }
}
