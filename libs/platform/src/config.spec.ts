import { ConfigError, formatSize, loadConfig, parseSize } from './config';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 8080, host: '0.0.0.0', bodyLimitBytes: 32 * 1024 * 1024, logLevel: 'info', databaseUrl: undefined, eventStoreUrl: undefined });
    expect(c.dataDir).toMatch(/\.mds-data$/);
  });

  it('parses sizes with units', () => {
    expect(parseSize('X', '32MiB')).toBe(33554432);
    expect(parseSize('X', '512 kb')).toBe(524288);
    expect(parseSize('X', '1048576')).toBe(1048576);
    expect(formatSize(33554432)).toBe('32 MiB');
    expect(formatSize(1536)).toBe('1536 bytes');
  });

  it('refuses bad values with the variable named', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(new ConfigError('PORT must be an integer between 0 and 65535, got "eighty"'));
    expect(() => loadConfig({ MDS_BODY_LIMIT: 'lots' })).toThrow(/MDS_BODY_LIMIT must be a size/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL must start with postgres/);
    expect(() => loadConfig({ EVENTSTORE_URL: 'http://x' })).toThrow(/EVENTSTORE_URL/);
  });

  it('takes a request timeout in ms, 120000 unless set', () => {
    expect(loadConfig({}).requestTimeoutMs).toBe(120_000);
    expect(loadConfig({ MDS_REQUEST_TIMEOUT_MS: '1500' }).requestTimeoutMs).toBe(1500);
    expect(() => loadConfig({ MDS_REQUEST_TIMEOUT_MS: '2m' })).toThrow(new ConfigError('MDS_REQUEST_TIMEOUT_MS must be an integer between 100 and 3600000, got "2m"'));
    expect(() => loadConfig({ MDS_REQUEST_TIMEOUT_MS: '0' })).toThrow(/MDS_REQUEST_TIMEOUT_MS must be an integer between 100/);
  });

  it('takes a memory budget for request bodies, never below the body limit', () => {
    expect(loadConfig({}).bodyMemoryBudgetBytes).toBe(64 * 1024 ** 2);
    expect(loadConfig({ MDS_BODY_LIMIT: '1MiB', MDS_BODY_MEMORY_BUDGET: '2MiB' }).bodyMemoryBudgetBytes).toBe(2 * 1024 ** 2);
    expect(loadConfig({ MDS_BODY_MEMORY_BUDGET: '32MiB' }).bodyMemoryBudgetBytes).toBe(32 * 1024 ** 2);
    // Unset, it grows with a body limit above its default rather than refusing to start.
    expect(loadConfig({ MDS_BODY_LIMIT: '128MiB' }).bodyMemoryBudgetBytes).toBe(128 * 1024 ** 2);
    expect(() => loadConfig({ MDS_BODY_MEMORY_BUDGET: 'plenty' })).toThrow(/MDS_BODY_MEMORY_BUDGET must be a size such as 32MiB/);
    expect(() => loadConfig({ MDS_BODY_MEMORY_BUDGET: '16MiB' })).toThrow(
      new ConfigError('MDS_BODY_MEMORY_BUDGET (16 MiB) must be at least MDS_BODY_LIMIT (32 MiB): a body the limit admits has to fit in the budget alone'),
    );
  });
});

describe('log format', () => {
  it('takes json or pretty, and refuses anything else by name', () => {
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'JSON' }).logFormat).toBe('json');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow('LOG_FORMAT must be json or pretty, got "xml"');
  });

  it('takes read replicas as a comma-separated list, with a lag bound', () => {
    expect(loadConfig({})).toMatchObject({ databaseReadUrls: [], readMaxLagMs: 5000, readCheckMs: 1000 });
    const c = loadConfig({ DATABASE_READ_URL: ' postgres://r1/mds, postgresql://r2:5433/mds ,', DATABASE_READ_MAX_LAG_MS: '2000' });
    expect(c).toMatchObject({ databaseReadUrls: ['postgres://r1/mds', 'postgresql://r2:5433/mds'], readMaxLagMs: 2000 });
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://r1/mds,r2:5433' })).toThrow('DATABASE_READ_URL must be one or more postgres:// URLs, separated by commas');
    expect(() => loadConfig({ DATABASE_READ_MAX_LAG_MS: '5s' })).toThrow(/DATABASE_READ_MAX_LAG_MS must be an integer/);
  });
});
