import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ACCESS_DEPS, OWNER_TOKENS } from '#mds/access';
import { KNOWN_EVENT_IDS, KNOWN_SALES_NOW } from '#mds/activity';
import { ERASED_IDENTIFIERS } from '#mds/customers';
import { OUTLET_SETTINGS } from '#mds/datatargets';
import { EVENT_STORE } from '#mds/event-store';
import { DATA_QUERY_MATCHES, DATA_QUERY_UPDATE_RULES, type DataQueryUpdateRules } from '#mds/imports';
import { SECRET_BOX } from '#mds/platform';
import { readModelPorts } from '#mds/projections';
import { KNOWN_SALE_TRANSACTIONS, SALE_ROWS_NOW, saleUpdateRule } from '#mds/sales';
import type { Runtime } from './runtime';

/**
 * Hands the composition root's parts to every Nest module: the event log for the command handlers,
 * the secret box and access settings, and the read-model ports commands consult (answered by the
 * projections' queries, so the contexts never import the read side). The Runtime itself is not a
 * provider: what reads goes through ReadModelsModule's query classes, what writes through the CommandBus.
 */
@Global()
@Module({})
export class RuntimeModule {
  static forRoot(runtime: Runtime): DynamicModule {
    const ports = readModelPorts(runtime);
    const updateRules: DataQueryUpdateRules = { sales: saleUpdateRule };
    return {
      module: RuntimeModule,
      providers: [
        { provide: EVENT_STORE, useValue: runtime.store },
        { provide: SECRET_BOX, useValue: runtime.accessDeps.secrets },
        { provide: ACCESS_DEPS, useValue: runtime.accessDeps },
        { provide: KNOWN_EVENT_IDS, useValue: ports.knownEventIds },
        { provide: KNOWN_SALE_TRANSACTIONS, useValue: ports.knownSaleTransactions },
        { provide: KNOWN_SALES_NOW, useValue: ports.knownSalesNow },
        { provide: SALE_ROWS_NOW, useValue: ports.saleRowsNow },
        { provide: DATA_QUERY_MATCHES, useValue: ports.dataQueryMatches },
        { provide: ERASED_IDENTIFIERS, useValue: ports.erasedIdentifiers },
        { provide: DATA_QUERY_UPDATE_RULES, useValue: updateRules },
        { provide: OWNER_TOKENS, useValue: ports.ownerTokens },
        // What outlet commands check a URL and send a test with (OUTLET_ALLOW_PRIVATE, the timeouts).
        { provide: OUTLET_SETTINGS, useValue: runtime.config.outlets },
      ],
      exports: [EVENT_STORE, SECRET_BOX, ACCESS_DEPS, KNOWN_EVENT_IDS, KNOWN_SALE_TRANSACTIONS, KNOWN_SALES_NOW, SALE_ROWS_NOW, DATA_QUERY_MATCHES, DATA_QUERY_UPDATE_RULES, ERASED_IDENTIFIERS, OWNER_TOKENS, OUTLET_SETTINGS],
    };
  }
}
