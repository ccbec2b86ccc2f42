/** Test tiers by suffix: *.spec.ts (unit), *.int-spec.ts (real Postgres), *.e2e-spec.ts (HTTP). */
const project = {
  testEnvironment: 'node',
  // Modules are reached by name (#mds/<name>, package.json "imports"); tests load their TypeScript sources.
  testEnvironmentOptions: { customExportConditions: ['node', 'node-addons', 'mds-source'] },
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/projections', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  // NestJS 12 and a few of its dependencies ship only ES modules; Jest on Node 20 loads CommonJS.
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|content-disposition|file-type|strtok3|token-types|@tokenizer|uint8array-extras|load-esm|uid|@lukeed)/)'],
  transform: {
    '^.+\\.[tj]s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
};

module.exports = {
  projects: [
    { ...project, displayName: 'log on PostgreSQL' },
    // The e2e suites again with the event log on EventStoreDB: the wire-level double of
    // test/support/esdb-double.ts (a test fixture, not a server), one per test database.
    {
      ...project,
      displayName: 'log on the EventStoreDB double',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      // Files that would only repeat themselves here: start-eventstoredb serves `mds start` a double of
      // its own, start runs `mds start` on its own embedded PostgreSQL; and the HTTP layer in front of
      // the log (hostile input, DTO validation, slow clients, rate limits, the HTTP platform, the OpenAPI
      // document) refuses or answers before a command reaches the log, the same whichever log it is
      // (the PostgreSQL run checks that refusals leave the log where it was; start-eventstoredb checks
      // /health on this log).
      testPathIgnorePatterns: [
        ...project.testPathIgnorePatterns,
        '/test/e2e/(start-eventstoredb|start|hostile-input|management-validation|slow-clients|rate-limit|http-platform|openapi)\\.e2e-spec\\.ts$',
      ],
      setupFiles: ['<rootDir>/test/support/log-on-esdb-double.js'],
    },
  ],
  globalSetup: '<rootDir>/test/support/global-setup.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  testTimeout: 60000,
  maxWorkers: 2,
  // A worker's heap grows with every file it runs (1.8 GB by the end, its collections ever slower):
  // past this it is replaced between files.
  workerIdleMemoryLimit: '700MB',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
