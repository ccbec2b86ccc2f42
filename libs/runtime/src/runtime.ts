import * as path from 'node:path';
import {
  createEventStore,
  POSTGRES_EVENT_STORE_MIGRATIONS,
  PERSONAL_DATA_MIGRATIONS,
  UpcasterRegistry,
  type EventStore,
  type PersonalFields,
} from '#mds/event-store';
import { CUSTOMER_PERSONAL_FIELDS, CUSTOMERS_IMPORTED } from '#mds/customers';
import { EVENT_PERSONAL_FIELDS, EVENTS_IMPORTED } from '#mds/activity';
import { SALE_PERSONAL_FIELDS, SALES_IMPORTED } from '#mds/sales';
import { CAMPAIGN_EVENT_PERSONAL_FIELDS, CAMPAIGN_EVENTS_IMPORTED } from '#mds/campaigns';
import { datatargetUpcasters, DELIVERY_ATTEMPTED, MESSAGES_POSTED } from '#mds/datatargets';
import { accessUpcasters, type AccessDeps } from '#mds/access';
import {
  createLogger,
  createPool,
  loadAuditSigner,
  loadSecretKey,
  PgNotifications,
  runMigrations,
  SecretBox,
  startEmbeddedPostgres,
  type AppConfig,
  type AuditSigner,
  type EmbeddedPostgresHandle,
  type Logger,
  type Pool,
} from '#mds/platform';
import { ACCESS_CHANNEL, ensureProjectionTables, OUTLETS_CHANNEL, PROJECTION_CATALOG_MIGRATIONS, PROJECTIONS, ReadPools, SETTINGS_CHANNEL, type Projection, type Replica, type RunnerDeps } from '#mds/projections';

/**
 * The personal fields of each kind of import chunk, kept apart from the log (forgettable payloads;
 * README "Personal data and the immutable log"). Each context says which of its fields are personal.
 */
export const PERSONAL_FIELDS: PersonalFields = {
  [CUSTOMERS_IMPORTED]: CUSTOMER_PERSONAL_FIELDS,
  [EVENTS_IMPORTED]: EVENT_PERSONAL_FIELDS,
  [SALES_IMPORTED]: SALE_PERSONAL_FIELDS,
  [CAMPAIGN_EVENTS_IMPORTED]: CAMPAIGN_EVENT_PERSONAL_FIELDS,
  // Clients' own payloads, kept whole so a datatarget's retention_days can drop them once delivered.
  [MESSAGES_POSTED]: { list: 'messages' },
  // A webhook receiver's reply may echo what it got (a person's whole record): kept apart likewise.
  [DELIVERY_ATTEMPTED]: { list: 'replies' },
};

/**
 * Upcasters of every context's events; contexts register theirs here as their events evolve. Those
 * that seal what older events kept in clear take the service's SecretBox.
 */
export function createUpcasters(secrets: SecretBox): UpcasterRegistry {
  return new UpcasterRegistry().register(...accessUpcasters(secrets), ...datatargetUpcasters(secrets));
}

/**
 * The composition root shared by every entry point (all-in-one start, api, projector, outlet
 * worker, CLI): database (embedded or DATABASE_URL), migrations, notifications, the event store.
 */
export interface Runtime {
  config: AppConfig;
  logger: Logger;
  pool: Pool;
  databaseUrl: string;
  notifications: PgNotifications;
  store: EventStore;
  /** Where retrieval reads go: DATABASE_READ_URL's replicas when they may serve, else `pool`. */
  readPools: ReadPools;
  projections: Projection[];
  embedded?: EmbeddedPostgresHandle;
  accessDeps: AccessDeps;
  /** The Ed25519 key signing the audit trail, loaded on first use (MDS_AUDIT_SIGNING_KEY or the data directory). */
  auditSigner(): AuditSigner;
  runnerDeps(): RunnerDeps;
  close(): Promise<void>;
}

/**
 * The first connection may be slow (a PostgreSQL just started on a busy machine, a server still
 * recovering): tries for up to a minute, saying so, before giving up.
 */
async function waitForDatabase(pool: Pool, logger: Logger, deadlineMs = 60_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (let attempt = 1; ; attempt++) {
    try {
      await pool.query('SELECT 1');
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
      logger.warn({ err: (err as Error).message, attempt }, 'waiting for PostgreSQL');
      await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** attempt)));
    }
  }
}

export async function openRuntime(
  config: AppConfig,
  /** `handlesSignals`: the caller stops the runtime on SIGINT/SIGTERM, so an embedded PostgreSQL need not get them. */
  options: { logger?: Logger; projections?: Projection[]; role?: string; poolSize?: number; handlesSignals?: boolean } = {},
): Promise<Runtime> {
  const logger = options.logger ?? createLogger(config.logLevel);
  let embedded: EmbeddedPostgresHandle | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, logger, detached: options.handlesSignals });
    databaseUrl = embedded.url;
  }
  const pool = createPool(databaseUrl, { max: options.poolSize ?? config.poolSize, applicationName: `mds-${options.role ?? 'service'}`, logger });
  const replicaPools = config.databaseReadUrls.map((url) =>
    // A replica that does not answer must not hold a read for long: the primary serves it instead.
    createPool(url, { max: options.poolSize ?? config.poolSize, applicationName: `mds-${options.role ?? 'service'}-reads`, logger, connectionTimeoutMs: 2000, queryTimeoutMs: 30_000 }),
  );
  const endReplicaPools = () => Promise.all(replicaPools.map((p) => p.end().catch(() => undefined)));
  try {
    await waitForDatabase(pool, logger);
    await runMigrations(pool, [
      { component: 'platform', dir: path.join(__dirname, 'migrations') },
      POSTGRES_EVENT_STORE_MIGRATIONS,
      PERSONAL_DATA_MIGRATIONS,
      PROJECTION_CATALOG_MIGRATIONS,
    ], logger);
    const notifications = new PgNotifications(databaseUrl, ['mds_events', 'mds_checkpoints', OUTLETS_CHANNEL, ACCESS_CHANNEL, SETTINGS_CHANNEL], logger);
    await notifications.start();
    const secrets = new SecretBox(() => loadSecretKey({ secretKey: config.secretKey, dataDir: config.dataDir, logger }));
    const upcasters = createUpcasters(secrets);
    const store = createEventStore({ pool, eventStoreUrl: config.eventStoreUrl, eventStoreMaxAppendBytes: config.eventStoreMaxAppendBytes, notifications, upcasters, personalFields: PERSONAL_FIELDS });
    const replicas: Replica[] = replicaPools.map((replicaPool, i) => ({
      name: replicaName(config.databaseReadUrls, i),
      pool: replicaPool,
      // The log's copy on the replica, for the audit trail; a log on EventStoreDB is not on it.
      log: config.eventStoreUrl ? undefined : createEventStore({ pool: replicaPool, upcasters, personalFields: PERSONAL_FIELDS }),
    }));
    const readPools = new ReadPools({ pool, store }, replicas, { maxLagMs: config.readMaxLagMs, checkMs: config.readCheckMs, logger });
    const url = databaseUrl;
    const accessDeps: AccessDeps = {
      secrets,
      passwordHashCost: config.passwordHashCost,
      lockoutFailures: config.loginLockoutFailures,
    };
    const projections = options.projections ?? PROJECTIONS;
    let signer: AuditSigner | undefined;
    const auditSigner = () => (signer ??= loadAuditSigner({ signingKey: config.auditSigningKey, dataDir: config.dataDir, logger }));
    return {
      config,
      logger,
      pool,
      databaseUrl: url,
      notifications,
      store,
      readPools,
      projections,
      embedded,
      accessDeps,
      auditSigner,
      runnerDeps: () => ({
        pool,
        databaseUrl: url,
        store,
        logger,
        batchSize: config.projectionBatchSize,
        idleMs: config.projectionIdleMs,
        leaseRetryMs: config.leaseRetryMs,
        keyedHash: (value: string) => accessDeps.secrets.keyedHash(value),
        auditSigner,
        auditCheckpointMs: config.auditCheckpointMs,
      }),
      async close() {
        await readPools.close();
        await notifications.close();
        await store.close();
        await endReplicaPools();
        await pool.end();
        await embedded?.stop();
      },
    };
  } catch (err) {
    await endReplicaPools();
    await pool.end().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw err;
  }
}

/** How /health and /metrics name the i-th replica: host, port and database, never the credentials. */
function replicaName(urls: string[], i: number): string {
  const name = (u: string) => {
    const url = new URL(u);
    return `${url.hostname}:${url.port || 5432}${url.pathname}`;
  };
  const own = name(urls[i]);
  return urls.filter((u) => name(u) === own).length > 1 ? `${own}#${i + 1}` : own;
}

/** Every read model's tables, created when missing (their projection may not have run yet): the API reads them from its first request. */
export function ensureReadModelTables(runtime: Pick<Runtime, 'pool'>): Promise<void> {
  return ensureProjectionTables(runtime.pool, PROJECTIONS);
}
