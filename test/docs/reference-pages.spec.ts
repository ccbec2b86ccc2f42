import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

/**
 * The datatype pages of docs/reference/ show the field tables the imports read. scripts/docs-reference.js
 * writes them from the build; after a table changes, run `npm run build && node scripts/docs-reference.js`
 * and commit the pages. Here it runs with `--check`, which writes nothing and names any page that differs.
 */
const ROOT = path.resolve(__dirname, '../..');

describe('docs/reference field tables', () => {
  it('are what scripts/docs-reference.js writes from the field tables', () => {
    const run = spawnSync(process.execPath, ['scripts/docs-reference.js', '--check'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(run.stdout.trim().split('\n')).toHaveLength(7);
    expect(run.stdout).not.toContain('written');
  });
});
