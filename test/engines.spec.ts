import * as fs from 'node:fs';
import * as path from 'node:path';

// package.json's `engines.node` is a promise: every installed package must run on every Node version
// it names, or `npm ci` warns (EBADENGINE) and the service may not start there. An upgrade that
// raises a dependency's floor fails here, not on a user's machine.

interface Semver {
  subset(sub: string, dom: string): boolean;
  validRange(range: string): string | null;
}
// semver is in the tree already (npm's own range rules); it ships no types.
const semver = require('semver') as Semver;

const ROOT = path.resolve(__dirname, '..');

interface Engine {
  name: string;
  version: string;
  dir: string;
  node: string;
}

/** Every package under `nodeModules` (scoped and nested ones too) that declares an `engines.node` range. */
function installedEngines(nodeModules: string): Engine[] {
  const out: Engine[] = [];
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
      const pkgDir = path.join(dir, entry.name);
      if (entry.name.startsWith('@')) {
        visit(pkgDir);
        continue;
      }
      const manifest = path.join(pkgDir, 'package.json');
      if (!fs.existsSync(manifest)) continue;
      const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string; version?: string; engines?: { node?: unknown } };
      if (typeof pkg.engines?.node === 'string') {
        out.push({ name: pkg.name ?? entry.name, version: pkg.version ?? '?', dir: path.relative(ROOT, pkgDir), node: pkg.engines.node });
      }
      const nested = path.join(pkgDir, 'node_modules');
      if (fs.existsSync(nested)) visit(nested);
    }
  };
  visit(nodeModules);
  return out;
}

/** The packages that would not run on some Node version `supported` names (an unreadable range counts as not). */
function excluding(supported: string, engines: Engine[]): string[] {
  return engines.filter((e) => !semver.validRange(e.node) || !semver.subset(supported, e.node)).map((e) => `${e.dir} ${e.version} needs node ${e.node}`);
}

describe('engines', () => {
  const supported = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;

  it('package.json names the Node versions it supports as a valid range', () => {
    expect(semver.validRange(supported)).not.toBeNull();
  });

  it('every installed package runs on every Node version package.json supports', () => {
    const engines = installedEngines(path.join(ROOT, 'node_modules'));
    expect(engines.length).toBeGreaterThan(100);
    expect(excluding(supported, engines)).toEqual([]);
  });

  it('a package that needs a newer Node, or an unreadable range, is caught', () => {
    const pkg = (node: string): Engine => ({ name: 'p', version: '1.0.0', dir: 'node_modules/p', node });
    expect(excluding('^20.19.0 || ^22.13.0 || >=24', [pkg('>=20'), pkg('^20.19.0 || >=22.12.0'), pkg('>=22'), pkg('^20.12 || ^22.13'), pkg('not a range')])).toEqual([
      'node_modules/p 1.0.0 needs node >=22',
      'node_modules/p 1.0.0 needs node ^20.12 || ^22.13',
      'node_modules/p 1.0.0 needs node not a range',
    ]);
  });
});
