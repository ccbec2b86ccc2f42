import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// The layering rules live in .dependency-cruiser.js (written out there, one rule each); this suite
// runs dependency-cruiser on the tree, checks what it cannot say (cycles between modules, names in
// nest-cli.json, a test beside every command handler), and shows each rule failing on a copy of the
// tree with violations injected.

const ROOT = path.resolve(__dirname, '..');
const CRUISER = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const DIRS = ['apps', 'libs', 'projections', 'test', 'bench'];

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
  /** For a cycle: the modules it passes through. */
  cycle?: Array<{ name: string }>;
}

interface Cruise {
  modules: Array<{ source: string; dependencies: Array<{ resolved: string }> }>;
  summary: { violations: Violation[]; totalCruised: number };
}

/** dependency-cruiser over `root` with the project's rules (it exits non-zero on violations: the JSON says which). */
function cruise(root: string): Cruise {
  const dirs = DIRS.filter((d) => fs.existsSync(path.join(root, d)));
  const run = spawnSync(process.execPath, [CRUISER, '--config', '.dependency-cruiser.js', '--output-type', 'json', ...dirs], { cwd: root, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  if (!run.stdout) throw new Error(`dependency-cruiser did not run: ${run.stderr}`);
  return JSON.parse(run.stdout) as Cruise;
}

/** The module a file belongs to: a lib, an app, the projections, or the tests and benchmarks. */
function moduleOf(file: string): string {
  const m = /^(libs|apps)\/([^/]+)\//.exec(file);
  return m ? `${m[1]}/${m[2]}` : file.split('/')[0];
}

const isTest = (file: string) => /\.(spec|int-spec|e2e-spec)\.ts$/.test(file) || file.includes('/contract/') || file.startsWith('test/') || file.startsWith('bench/');

/** Cycles between modules (libs, apps, projections) in production code, each as a path `a → b → a`. */
function moduleCycles(result: Cruise): string[] {
  const edges = new Map<string, Set<string>>();
  for (const m of result.modules) {
    if (isTest(m.source) || !/^(libs|apps|projections)\//.test(m.source)) continue;
    const from = moduleOf(m.source);
    for (const d of m.dependencies) {
      if (!/^(libs|apps|projections)\//.test(d.resolved)) continue;
      const to = moduleOf(d.resolved);
      if (to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const cycles = new Set<string>();
  const walk = (node: string, trail: string[]) => {
    for (const next of edges.get(node) ?? []) {
      const at = trail.indexOf(next);
      if (at >= 0) {
        const loop = trail.slice(at);
        // One spelling per cycle: start from its smallest module.
        const start = loop.indexOf([...loop].sort()[0]);
        const ordered = [...loop.slice(start), ...loop.slice(0, start)];
        cycles.add([...ordered, ordered[0]].join(' → '));
      } else if (trail.length < 12) walk(next, [...trail, next]);
    }
  };
  for (const node of edges.keys()) walk(node, [node]);
  return [...cycles].sort();
}

/** One violation per line, as `rule: from → to`. */
const lines = (violations: Violation[]) => violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);

describe('architecture boundaries', () => {
  const tree = cruise(ROOT);

  it('reads the whole tree, each #mds/ name resolved to its module', () => {
    const sources = tree.modules.map((m) => m.source);
    expect(sources).toContain('libs/event-store/src/esdb/esdb-event-store.ts');
    expect(sources.filter((s) => s.startsWith('apps/')).length).toBeGreaterThan(5);
    const api = tree.modules.find((m) => m.source === 'apps/api/src/api.module.ts')!;
    expect(api.dependencies.map((d) => d.resolved)).toEqual(expect.arrayContaining(['libs/runtime/src/index.ts', 'projections/index.ts']));
  });

  it('keeps every layering rule of .dependency-cruiser.js', () => {
    expect(lines(tree.summary.violations)).toEqual([]);
  });

  it('has no cycle between modules', () => {
    expect(moduleCycles(tree)).toEqual([]);
  });

  it('names every lib and app, and nest-cli.json lists each of them', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { imports: Record<string, Record<string, string>> };
    const named = new Set(Object.values(pkg.imports).map((t) => moduleOf(t['mds-source'].replace(/^\.\//, ''))));
    const nest = JSON.parse(fs.readFileSync(path.join(ROOT, 'nest-cli.json'), 'utf8')) as { projects: Record<string, { root: string }> };
    const modules = ['libs', 'apps'].flatMap((d) => fs.readdirSync(path.join(ROOT, d)).map((m) => `${d}/${m}`));
    expect(modules.filter((m) => !named.has(m))).toEqual([]);
    expect(modules.filter((m) => !Object.values(nest.projects).some((p) => p.root === m))).toEqual([]);
    // Each name resolves to the module's index, in the sources and in the build.
    for (const [name, targets] of Object.entries(pkg.imports)) {
      if (name.endsWith('*')) continue;
      expect([name, fs.existsSync(path.join(ROOT, targets['mds-source']))]).toEqual([name, true]);
      expect(targets.default).toBe(targets['mds-source'].replace(/^\.\//, './dist/').replace(/\.ts$/, '.js'));
    }
  });

  it('has a test beside every command handler (libs/<context>/src/<use-case>/)', () => {
    const untested: string[] = [];
    for (const lib of fs.readdirSync(path.join(ROOT, 'libs'))) {
      const src = path.join(ROOT, 'libs', lib, 'src');
      if (!fs.existsSync(src)) continue;
      for (const useCase of fs.readdirSync(src, { withFileTypes: true }).filter((e) => e.isDirectory())) {
        const files = fs.readdirSync(path.join(src, useCase.name));
        if (files.some((f) => f.endsWith('.handler.ts')) && !files.some((f) => /\.(spec|int-spec)\.ts$/.test(f))) untested.push(`libs/${lib}/src/${useCase.name}`);
      }
    }
    expect(untested).toEqual([]);
  });

  describe('fails on each kind of violation, injected into a copy of the tree', () => {
    /** Each violation: the file it lands in, what is written there, and the rules that must say so. */
    const INJECTED: Array<{ what: string; file: string; prepend?: string; text: string; rules: string[] }> = [
      {
        what: '1. a context importing pg',
        file: 'libs/customers/src/pg-leak.ts',
        text: "import type { Pool } from 'pg';\nexport const countCustomers = (pool: Pool) => pool.query('SELECT count(*) FROM customers');\n",
        rules: ['no-pg-outside-the-sql-layers'],
      },
      {
        what: '2. a cycle through the composition root (the read side opening the runtime)',
        file: 'projections/runtime/runtime-probe.ts',
        text: "import { openRuntime } from '#mds/runtime';\nexport const reopen = openRuntime;\n",
        rules: ['projections-below-runtime-and-apps', 'only-apps-import-the-composition-root', 'no-circular'],
      },
      {
        what: '3. platform importing a context',
        file: 'libs/platform/src/context-leak.ts',
        text: "import { CUSTOMERS_IMPORTED } from '#mds/customers';\nexport const IMPORTED = CUSTOMERS_IMPORTED;\n",
        rules: ['platform-imports-nothing-of-ours'],
      },
      {
        what: '4. an app importing another app',
        file: 'apps/outlet-worker/src/api-leak.ts',
        text: "import { createApiApp } from '#mds/api';\nexport const api = createApiApp;\n",
        rules: ['no-app-imports-another-app'],
      },
      {
        what: '5. a controller calling the pool',
        file: 'apps/api/src/catalog/products.http.controller.ts',
        prepend: "import type { Pool } from 'pg';\n",
        text: "\nexport const countProducts = (pool: Pool) => pool.query('SELECT count(*) FROM products');\n",
        rules: ['no-pg-outside-the-sql-layers', 'controllers-never-see-the-pool-or-the-log'],
      },
      {
        what: '6. a controller calling the event store',
        file: 'apps/api/src/customers/customers.http.controller.ts',
        prepend: "import { EVENT_STORE, type EventStore } from '#mds/event-store';\n",
        text: '\nexport const STORE = EVENT_STORE;\nexport const readLog = (store: EventStore) => store.readAll({ limit: 1 });\n',
        rules: ['apps-never-import-the-event-store', 'controllers-never-see-the-pool-or-the-log'],
      },
      {
        what: '7. a module reached by a relative path (caught before)',
        file: 'libs/customers/src/relative-leak.ts',
        text: "import { invalidRequest } from '../../platform/src/errors';\nexport const refuse = invalidRequest;\n",
        rules: ['modules-by-their-name', 'modules-only-through-their-index'],
      },
      {
        what: '8. the EventStoreDB client outside libs/event-store (caught before)',
        file: 'libs/datatargets/src/esdb-leak.ts',
        text: "import { EventStoreDBClient } from '@eventstore/db-client';\nexport const Client = EventStoreDBClient;\n",
        rules: ['esdb-client-only-in-event-store'],
      },
      {
        what: '9. a cycle between two libs (imports ⇄ settings, as it was)',
        file: 'libs/imports/src/company-fields.ts',
        prepend: "import type { Settings } from '#mds/settings';\n",
        text: '\nexport const prefixesOf = (settings: Settings) => settings.company_prefixes;\n',
        rules: ['imports-on-event-store-and-platform', 'no-circular'],
      },
      {
        what: '10. a controller reaching the pool through the Runtime',
        file: 'apps/api/src/imports/runs.http.controller.ts',
        prepend: "import type { Runtime } from '#mds/runtime';\n",
        text: "\nexport const runCount = (runtime: Runtime) => runtime.pool.query('SELECT 1');\n",
        rules: ['controllers-never-see-the-pool-or-the-log', 'api-sees-the-composition-root-only-in-its-bootstrap'],
      },
      {
        what: '11. a context reading the projections',
        file: 'libs/activity/src/read-leak.ts',
        text: "import { EventsReadModel } from '#mds/projections';\nexport const Events = EventsReadModel;\n",
        rules: ['contexts-below-read-side-and-apps'],
      },
      {
        what: '12. production code importing test support',
        file: 'libs/access/src/test-leak.ts',
        text: "import { eventually } from '#mds/testing/eventually';\nexport const wait = eventually;\n",
        rules: ['production-never-imports-test-support'],
      },
      {
        what: '13. a name package.json does not declare',
        file: 'libs/catalog/src/name-leak.ts',
        text: "import { nothing } from '#mds/nothing';\nexport const x = nothing;\n",
        rules: ['not-to-unresolvable'],
      },
    ];

    let copy: string;
    let injected: Cruise;

    beforeAll(() => {
      copy = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-architecture-'));
      for (const d of ['apps', 'libs', 'projections']) fs.cpSync(path.join(ROOT, d), path.join(copy, d), { recursive: true });
      for (const f of ['package.json', 'tsconfig.json', '.dependency-cruiser.js']) fs.copyFileSync(path.join(ROOT, f), path.join(copy, f));
      fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
      // Test support, for the name #mds/testing/* to resolve to.
      fs.mkdirSync(path.join(copy, 'test'));
      fs.cpSync(path.join(ROOT, 'test', 'support'), path.join(copy, 'test', 'support'), { recursive: true });
      for (const v of INJECTED) {
        const file = path.join(copy, v.file);
        const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
        fs.writeFileSync(file, `${v.prepend ?? ''}${before}${v.text}`);
      }
      // The cycle through the root closes once the read side's index exports what opened it.
      fs.appendFileSync(path.join(copy, 'projections', 'index.ts'), "export * from './runtime/runtime-probe';\n");
      injected = cruise(copy);
    });

    afterAll(() => {
      if (copy) fs.rmSync(copy, { recursive: true, force: true });
    });

    /** The rules that name a file: its own imports, and the cycles passing through it. */
    const rulesAt = (file: string) => [...new Set(injected.summary.violations.filter((f) => f.from === file || f.cycle?.some((c) => c.name === file)).map((f) => f.rule.name))].sort();

    it.each(INJECTED.map((v) => [v.what, v] as const))('%s', (_, v) => {
      expect(rulesAt(v.file)).toEqual(expect.arrayContaining(v.rules));
    });

    it('and nothing else: every violation found comes from an injection', () => {
      const files = new Set(INJECTED.map((v) => v.file));
      // Cycles are reported on each file they pass through (indexes, the runtime); the copy has no
      // dist/ and no fixtures, which a few tests and test support load.
      const others = injected.summary.violations.filter((f) => !files.has(f.from) && f.rule.name !== 'no-circular' && !(f.rule.name === 'not-to-unresolvable' && isTest(f.from)));
      expect(lines(others)).toEqual([]);
    });

    it('finds the cycles between modules the injections made', () => {
      expect(moduleCycles(injected)).toEqual(
        expect.arrayContaining(['libs/imports → libs/settings → libs/imports', 'libs/runtime → projections → libs/runtime', 'libs/customers → libs/platform → libs/customers']),
      );
    });
  });
});
