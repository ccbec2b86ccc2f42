import * as path from 'node:path';

/** Every setting the service reads, in one place; the README's configuration table mirrors it. */
export interface AppConfig {
  port: number;
  host: string;
  databaseUrl?: string;
  /** DATABASE_READ_URL: streaming replicas of DATABASE_URL's server that retrieval may read from. */
  databaseReadUrls: string[];
  /** A replica replaying the primary's WAL later than this is skipped until it catches up. */
  readMaxLagMs: number;
  /** How often each replica's state and lag are checked. */
  readCheckMs: number;
  dataDir: string;
  embeddedPgPort?: number;
  eventStoreUrl?: string;
  /** EventStoreDB's MaxAppendSize (the server's setting): larger appends are staged (README "EventStoreDB"). */
  eventStoreMaxAppendBytes: number;
  bodyLimitBytes: number;
  /** Longest a request may take to arrive, headers and body; then 408 and the connection closes. */
  requestTimeoutMs: number;
  /** Bytes of request bodies received or handled at once, by requests not answered yet (at least bodyLimitBytes). */
  bodyMemoryBudgetBytes: number;
  logLevel: string;
  /** `json` (one JSON line an entry) or `pretty` (for people); LOG_FORMAT, else pretty on a terminal. */
  logFormat: 'json' | 'pretty';
  poolSize: number;
  projectionBatchSize: number;
  projectionIdleMs: number;
  leaseRetryMs: number;
  shutdownTimeoutMs: number;
  secretKey?: string;
  /** MDS_AUDIT_SIGNING_KEY: the Ed25519 key signing the audit trail (else generated into the data directory). */
  auditSigningKey?: string;
  /** How often the audit trail's chain is checkpointed into the log (signed); 0: never. */
  auditCheckpointMs: number;
  /** Requests per minute per access token and API process; 0 turns rate limiting off. */
  rateLimitPerMinute: number;
  /** How long an API process keeps a token it found, with the rate limit off (0: never); changes empty it at once. */
  tokenCacheMs: number;
  /** How long an API process keeps a campaign list page it answered, unless the read model's move is announced first (0: never). */
  campaignPagesKeepMs: number;
  /** log2 of scrypt's N for new password hashes. */
  passwordHashCost: number;
  loginLockoutFailures: number;
  admin?: { username: string; password: string; totpSecret?: string };
  outlets: OutletConfig;
}

/** Webhook delivery (the outlet worker). */
export interface OutletConfig {
  /** Lets outlets reach loopback, private and link-local addresses (tests, trusted networks). */
  allowPrivate: boolean;
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  /** An outlet failing this long pauses itself (default 3 days); nothing is dropped. */
  pauseAfterMs: number;
  /** First retry delay; doubles per failure (with jitter) up to maxBackoffMs. */
  backoffBaseMs: number;
  maxBackoffMs: number;
  /** How often a worker looks for outlets to own and for new messages when idle. */
  pollMs: number;
  /** How often a worker drops the payloads of delivered messages past their datatarget's retention_days. */
  retentionSweepMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, kib: 1024, mb: 1024 ** 2, mib: 1024 ** 2, gb: 1024 ** 3, gib: 1024 ** 3 };

/** Parses "32MiB", "512kb", "1048576" into bytes. */
export function parseSize(name: string, raw: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(raw);
  const unit = match ? SIZE_UNITS[match[2].toLowerCase()] : undefined;
  if (!match || unit === undefined) throw new ConfigError(`${name} must be a size such as 32MiB or 1048576, got "${raw}"`);
  const bytes = Math.floor(Number(match[1]) * unit);
  if (bytes < 1) throw new ConfigError(`${name} must be at least 1 byte`);
  return bytes;
}

export function formatSize(bytes: number): string {
  if (bytes % 1024 ** 2 === 0) return `${bytes / 1024 ** 2} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

// Every body the limit admits must fit alone, or it could never be served.
function bodyMemoryBudget(env: Env, bodyLimitBytes: number): number {
  if (!env.MDS_BODY_MEMORY_BUDGET?.trim()) return Math.max(64 * 1024 ** 2, bodyLimitBytes);
  const budget = parseSize('MDS_BODY_MEMORY_BUDGET', env.MDS_BODY_MEMORY_BUDGET);
  if (budget < bodyLimitBytes) {
    throw new ConfigError(
      `MDS_BODY_MEMORY_BUDGET (${formatSize(budget)}) must be at least MDS_BODY_LIMIT (${formatSize(bodyLimitBytes)}): a body the limit admits has to fit in the budget alone`,
    );
  }
  return budget;
}

function adminFrom(env: Env): AppConfig['admin'] {
  const username = env.MDS_ADMIN_USERNAME?.trim();
  const password = env.MDS_ADMIN_PASSWORD;
  if (!username && !password) return undefined;
  if (!username || !password) throw new ConfigError('MDS_ADMIN_USERNAME and MDS_ADMIN_PASSWORD are set together');
  return { username, password, totpSecret: env.MDS_ADMIN_TOTP_SECRET?.trim() || undefined };
}

function logFormat(raw: string | undefined): 'json' | 'pretty' {
  const value = raw?.trim().toLowerCase();
  if (!value) return process.stdout.isTTY ? 'pretty' : 'json';
  if (value !== 'json' && value !== 'pretty') throw new ConfigError(`LOG_FORMAT must be json or pretty, got "${raw}"`);
  return value;
}

export function loadConfig(env: Env = process.env): AppConfig {
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const databaseReadUrls = (env.DATABASE_READ_URL ?? '').split(',').map((u) => u.trim()).filter(Boolean);
  if (databaseReadUrls.some((u) => !/^postgres(ql)?:\/\//.test(u))) {
    throw new ConfigError('DATABASE_READ_URL must be one or more postgres:// URLs, separated by commas');
  }
  const eventStoreUrl = env.EVENTSTORE_URL?.trim() || undefined;
  if (eventStoreUrl && !/^(esdb|esdb\+discover|kurrentdb|kdb):\/\//.test(eventStoreUrl)) {
    throw new ConfigError('EVENTSTORE_URL must be an esdb:// connection string');
  }
  const bodyLimitBytes = env.MDS_BODY_LIMIT ? parseSize('MDS_BODY_LIMIT', env.MDS_BODY_LIMIT) : 32 * 1024 ** 2;
  return {
    port: int(env, 'PORT', 8080, 0, 65535),
    host: env.HOST?.trim() || '0.0.0.0',
    databaseUrl,
    databaseReadUrls,
    readMaxLagMs: int(env, 'DATABASE_READ_MAX_LAG_MS', 5000, 100, 3_600_000),
    readCheckMs: int(env, 'DATABASE_READ_CHECK_MS', 1000, 50, 60_000),
    dataDir: path.resolve(env.MDS_DATA_DIR?.trim() || '.mds-data'),
    embeddedPgPort: env.MDS_EMBEDDED_PG_PORT ? int(env, 'MDS_EMBEDDED_PG_PORT', 0, 1, 65535) : undefined,
    eventStoreUrl,
    eventStoreMaxAppendBytes: env.EVENTSTORE_MAX_APPEND_SIZE ? parseSize('EVENTSTORE_MAX_APPEND_SIZE', env.EVENTSTORE_MAX_APPEND_SIZE) : 1024 ** 2,
    bodyLimitBytes,
    requestTimeoutMs: int(env, 'MDS_REQUEST_TIMEOUT_MS', 120_000, 100, 3_600_000),
    bodyMemoryBudgetBytes: bodyMemoryBudget(env, bodyLimitBytes),
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    logFormat: logFormat(env.LOG_FORMAT),
    poolSize: int(env, 'MDS_PG_POOL_SIZE', 10, 1, 1000),
    projectionBatchSize: int(env, 'MDS_PROJECTION_BATCH_SIZE', 500, 1, 100_000),
    projectionIdleMs: int(env, 'MDS_PROJECTION_IDLE_MS', 1000, 10, 60_000),
    leaseRetryMs: int(env, 'MDS_LEASE_RETRY_MS', 2000, 10, 600_000),
    shutdownTimeoutMs: int(env, 'MDS_SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000),
    secretKey: env.MDS_SECRET_KEY?.trim() || undefined,
    auditSigningKey: env.MDS_AUDIT_SIGNING_KEY?.trim() || undefined,
    auditCheckpointMs: int(env, 'MDS_AUDIT_CHECKPOINT_MS', 60_000, 0, 86_400_000),
    rateLimitPerMinute: int(env, 'MDS_RATE_LIMIT_PER_MINUTE', 1200, 0, 10_000_000),
    tokenCacheMs: int(env, 'MDS_TOKEN_CACHE_MS', 10_000, 0, 300_000),
    campaignPagesKeepMs: int(env, 'MDS_CAMPAIGN_PAGES_KEEP_MS', 1_000, 0, 600_000),
    passwordHashCost: int(env, 'MDS_PASSWORD_HASH_COST', 15, 10, 20),
    loginLockoutFailures: int(env, 'MDS_LOGIN_LOCKOUT_FAILURES', 100, 1, 1_000_000),
    admin: adminFrom(env),
    outlets: {
      allowPrivate: bool(env, 'OUTLET_ALLOW_PRIVATE', false),
      connectTimeoutMs: int(env, 'OUTLET_CONNECT_TIMEOUT_MS', 5000, 10, 600_000),
      totalTimeoutMs: int(env, 'OUTLET_TIMEOUT_MS', 30_000, 10, 3_600_000),
      pauseAfterMs: int(env, 'OUTLET_PAUSE_AFTER_MS', 3 * 24 * 3600 * 1000, 1000, Number.MAX_SAFE_INTEGER),
      backoffBaseMs: int(env, 'OUTLET_BACKOFF_BASE_MS', 1000, 1, 3_600_000),
      maxBackoffMs: int(env, 'OUTLET_MAX_BACKOFF_MS', 3_600_000, 1, 86_400_000),
      pollMs: int(env, 'OUTLET_POLL_MS', 500, 10, 60_000),
      retentionSweepMs: int(env, 'OUTLET_RETENTION_SWEEP_MS', 60_000, 100, 86_400_000),
    },
  };
}
