import { DynamicModule, Global, Module, type Type } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { EVENT_STORE } from '../../../libs/event-store/src';
import type { Runtime } from '../../../libs/runtime/src';
import { AccessHttpModule } from './access/access.http.module';
import { ActivityHttpModule } from './activity/activity.http.module';
import { CatalogHttpModule } from './catalog/catalog.http.module';
import { CustomersHttpModule } from './customers/customers.http.module';
import { DatatargetsHttpModule } from './datatargets/datatargets.http.module';
import { HealthHttpController } from './health/health.http.controller';
import { SalesHttpModule } from './sales/sales.http.module';
import { SettingsHttpModule } from './settings/settings.http.module';
import { ServiceMetrics } from './metrics/metrics';
import { MetricsHttpController } from './metrics/metrics.http.controller';
import { METRICS, RUNTIME } from './platform/tokens';

/** Hands the composition root's parts to every module; contexts' modules are imported here. */
@Global()
@Module({})
export class RuntimeModule {
  static forRoot(runtime: Runtime, metrics: ServiceMetrics): DynamicModule {
    return {
      module: RuntimeModule,
      providers: [
        { provide: RUNTIME, useValue: runtime },
        { provide: EVENT_STORE, useValue: runtime.store },
        { provide: METRICS, useValue: metrics },
      ],
      exports: [RUNTIME, EVENT_STORE, METRICS],
    };
  }
}

export type ApiContextModules = Array<Type<unknown> | DynamicModule>;

/** The bounded contexts' HTTP modules (access, customers, catalog, ...), added as they are built. */
export const CONTEXT_MODULES: ApiContextModules = [AccessHttpModule, SettingsHttpModule, CustomersHttpModule, CatalogHttpModule, ActivityHttpModule, SalesHttpModule, DatatargetsHttpModule];

@Module({})
export class ApiModule {
  static forRoot(runtime: Runtime, metrics: ServiceMetrics, contexts: ApiContextModules = CONTEXT_MODULES): DynamicModule {
    return {
      module: ApiModule,
      imports: [RuntimeModule.forRoot(runtime, metrics), CqrsModule.forRoot(), ...new Set([...CONTEXT_MODULES, ...contexts])],
      controllers: [HealthHttpController, MetricsHttpController],
    };
  }
}
