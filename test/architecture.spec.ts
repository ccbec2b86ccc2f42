import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

interface Source {
  file: string; // relative to the repository root, with forward slashes
  imports: string[]; // module specifiers as written
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g;

function sources(dir: string): Source[] {
  const out: Source[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(full);
      } else if (entry.name.endsWith('.ts')) {
        const text = fs.readFileSync(full, 'utf8');
        const imports = [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3]);
        out.push({ file: path.relative(ROOT, full).split(path.sep).join('/'), imports });
      }
    }
  };
  walk(path.join(ROOT, dir));
  return out;
}

/** The module a file belongs to: a lib, an app, the projections, or the tests and benchmarks. */
export function moduleOf(file: string): string {
  const m = /^(libs|apps)\/([^/]+)\//.exec(file);
  if (m) return `${m[1]}/${m[2]}`;
  return file.split('/')[0];
}

/** The name each module is imported by (package.json "imports"), keyed by module. */
export function moduleNames(): Record<string, string> {
  const imports = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).imports as Record<string, Record<string, string>>;
  const names: Record<string, string> = {};
  for (const [name, targets] of Object.entries(imports)) {
    const source = targets['mds-source'].replace(/^\.\//, '');
    names[moduleOf(source) === 'test' ? source.replace(/\/\*\.ts$/, '') : moduleOf(source)] = name;
  }
  return names;
}

const isTest = (file: string) => /\.(spec|int-spec|e2e-spec)\.ts$/.test(file) || file.includes('/contract/') || file.startsWith('test/');
const isApp = (module: string) => module.startsWith('apps/');
const LIBS_MAY_USE_PROJECTIONS = new Set(['libs/runtime']);

/** The layering rules of DESIGN.md and STYLE.md. Returns one line per violation. */
export function findViolations(files: Source[], names: Record<string, string>): string[] {
  const byName = new Map(Object.entries(names).map(([module, name]) => [name.replace(/\/\*$/, ''), module]));
  const problems: string[] = [];
  for (const { file, imports } of files) {
    const from = moduleOf(file);
    for (const spec of imports) {
      // The wire-level double of EventStoreDB serves the client's own gRPC definitions (a test fixture).
      if (spec.startsWith('@eventstore/') && from !== 'libs/event-store' && !(file.startsWith('test/support/esdb-double') && spec.startsWith('@eventstore/db-client/generated/'))) {
        problems.push(`${file}: only libs/event-store may import the EventStoreDB client`);
      }
      if ((spec === 'pg' || spec.startsWith('pg/')) && isApp(from)) {
        problems.push(`${file}: apps never import pg; go through a command, a projection's queries or libs/runtime`);
      }
      let to: string | undefined;
      if (spec.startsWith('.')) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
        to = moduleOf(target);
        if (to !== from && !(from === 'bench' && to === 'test') && !(to === 'test' && from === 'test')) {
          problems.push(`${file}: reaches ${target} by a relative path; import ${names[to] ?? `the module ${to}`} by its name`);
          continue;
        }
      } else if (spec.startsWith('#mds/')) {
        const base = spec.split('/').slice(0, 2).join('/');
        to = byName.get(spec) ?? byName.get(base) ?? byName.get(`${base}/${spec.split('/')[2]}`);
        if (!to) {
          problems.push(`${file}: ${spec} is not a module name of package.json "imports"`);
          continue;
        }
      } else continue;
      if (to === from) {
        if (spec.startsWith('#mds/')) problems.push(`${file}: imports its own module by name (${spec}); use a relative path inside a module`);
        continue;
      }
      if (isApp(from) && to === 'libs/event-store' && !isTest(file)) problems.push(`${file}: apps never import the event store; dispatch a command or call a query`);
      if (from.startsWith('libs/') && (isApp(to) || (to === 'projections' && !LIBS_MAY_USE_PROJECTIONS.has(from)))) {
        problems.push(`${file}: a lib never imports ${to}; the read side and the apps depend on the libs, not the reverse`);
      }
      if (from === 'projections' && isApp(to)) problems.push(`${file}: projections never import an app`);
      if ((to.startsWith('test/') || to === 'test') && !isTest(file) && from !== 'bench') problems.push(`${file}: production code never imports test support`);
    }
  }
  return problems;
}

describe('architecture boundaries', () => {
  const all = ['apps', 'libs', 'projections', 'test', 'bench'].filter((d) => fs.existsSync(path.join(ROOT, d))).flatMap(sources);
  const names = moduleNames();

  it('reads the whole tree and every module name', () => {
    expect(all.some((s) => s.file === 'libs/event-store/src/esdb/esdb-event-store.ts')).toBe(true);
    expect(all.filter((s) => s.file.startsWith('apps/')).length).toBeGreaterThan(5);
    expect(names['libs/customers']).toBe('#mds/customers');
    expect(names.projections).toBe('#mds/projections');
  });

  it('names every lib and app, and nest-cli.json lists each of them', () => {
    const nest = JSON.parse(fs.readFileSync(path.join(ROOT, 'nest-cli.json'), 'utf8')) as { projects: Record<string, { root: string }> };
    const modules = ['libs', 'apps'].flatMap((d) => fs.readdirSync(path.join(ROOT, d)).map((m) => `${d}/${m}`));
    expect(modules.filter((m) => !names[m])).toEqual([]);
    expect(modules.filter((m) => !Object.values(nest.projects).some((p) => p.root === m))).toEqual([]);
    // Each name resolves to the module's index, in the sources and in the build.
    for (const [name, targets] of Object.entries(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).imports as Record<string, Record<string, string>>)) {
      if (name.endsWith('*')) continue;
      expect([name, fs.existsSync(path.join(ROOT, targets['mds-source']))]).toEqual([name, true]);
      expect(targets.default).toBe(targets['mds-source'].replace(/^\.\//, './dist/').replace(/\.ts$/, '.js'));
    }
  });

  it('keeps modules behind their names, the EventStoreDB client in libs/event-store, and pg and the event store out of apps', () => {
    expect(findViolations(all, names)).toEqual([]);
  });

  it('catches each kind of violation', () => {
    const violations = findViolations(
      [
        { file: 'apps/api/src/x.ts', imports: ['pg', '#mds/event-store', '../../../libs/event-store/src/postgres/postgres-event-store'] },
        { file: 'libs/customers/src/y.ts', imports: ['@eventstore/db-client', '../../platform/src', '#mds/projections', '#mds/customers', './z'] },
        { file: 'libs/customers/src/z.ts', imports: ['#mds/platform', '#mds/nothing', '#mds/testing/eventually'] },
        { file: 'projections/p.ts', imports: ['#mds/api', '../libs/platform/src'] },
        { file: 'test/support/esdb-double.ts', imports: ['@eventstore/db-client/generated/streams_pb', '@eventstore/db-client'] },
      ],
      names,
    );
    expect(violations).toEqual([
      'apps/api/src/x.ts: apps never import pg; go through a command, a projection\'s queries or libs/runtime',
      'apps/api/src/x.ts: apps never import the event store; dispatch a command or call a query',
      'apps/api/src/x.ts: reaches libs/event-store/src/postgres/postgres-event-store by a relative path; import #mds/event-store by its name',
      'libs/customers/src/y.ts: only libs/event-store may import the EventStoreDB client',
      'libs/customers/src/y.ts: reaches libs/platform/src by a relative path; import #mds/platform by its name',
      'libs/customers/src/y.ts: a lib never imports projections; the read side and the apps depend on the libs, not the reverse',
      'libs/customers/src/y.ts: imports its own module by name (#mds/customers); use a relative path inside a module',
      'libs/customers/src/z.ts: #mds/nothing is not a module name of package.json "imports"',
      'libs/customers/src/z.ts: production code never imports test support',
      'projections/p.ts: projections never import an app',
      'projections/p.ts: reaches libs/platform/src by a relative path; import #mds/platform by its name',
      'test/support/esdb-double.ts: only libs/event-store may import the EventStoreDB client',
    ]);
  });
});
