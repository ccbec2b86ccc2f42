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

const isTest = (file: string) => /\.(spec|int-spec|e2e-spec)\.ts$/.test(file) || file.includes('/contract/');

/** The layering rules of DESIGN.md and STYLE.md. Returns one line per violation. */
export function findViolations(files: Source[]): string[] {
  const problems: string[] = [];
  for (const { file, imports } of files) {
    for (const spec of imports) {
      if ((spec === '@eventstore/db-client' || spec.startsWith('@eventstore/')) && !file.startsWith('libs/event-store/')) {
        problems.push(`${file}: only libs/event-store may import the EventStoreDB client`);
      }
      if ((spec === 'pg' || spec.startsWith('pg/')) && file.startsWith('apps/')) {
        problems.push(`${file}: apps never import pg; go through libs/platform, the event store port or a projection`);
      }
      if (!spec.startsWith('.')) continue;
      // A lib is reached only through its index (libs/<name>/src), never through its internal files.
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      const lib = /^libs\/([^/]+)\/src(?:\/(.*))?$/.exec(target);
      if (lib && lib[2] && lib[2] !== 'index' && !file.startsWith(`libs/${lib[1]}/`) && !isTest(file)) {
        problems.push(`${file}: imports ${target}; use libs/${lib[1]}/src (its index) instead`);
      }
    }
  }
  return problems;
}

describe('architecture boundaries', () => {
  const all = ['apps', 'libs', 'projections', 'test', 'bench'].filter((d) => fs.existsSync(path.join(ROOT, d))).flatMap(sources);

  it('reads the whole tree', () => {
    expect(all.some((s) => s.file === 'libs/event-store/src/esdb/esdb-event-store.ts')).toBe(true);
    expect(all.filter((s) => s.file.startsWith('apps/')).length).toBeGreaterThan(5);
  });

  it('keeps the EventStoreDB client inside libs/event-store, pg out of apps, and libs behind their index', () => {
    expect(findViolations(all)).toEqual([]);
  });

  it('catches each kind of violation', () => {
    const violations = findViolations([
      { file: 'apps/api/src/x.ts', imports: ['pg', '../../../libs/event-store/src/postgres/postgres-event-store'] },
      { file: 'libs/customers/src/y.ts', imports: ['@eventstore/db-client', '../../platform/src/database'] },
      { file: 'libs/customers/src/z.ts', imports: ['../../platform/src', './y', '../../platform/src/index'] },
    ]);
    expect(violations).toEqual([
      'apps/api/src/x.ts: apps never import pg; go through libs/platform, the event store port or a projection',
      'apps/api/src/x.ts: imports libs/event-store/src/postgres/postgres-event-store; use libs/event-store/src (its index) instead',
      'libs/customers/src/y.ts: only libs/event-store may import the EventStoreDB client',
      'libs/customers/src/y.ts: imports libs/platform/src/database; use libs/platform/src (its index) instead',
    ]);
  });
});
