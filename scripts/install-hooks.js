// Run by `npm install` (prepare): points git at the repository's hooks (.githooks), so the
// commit-msg rule applies to every clone. Outside a git checkout (a tarball) there is nothing to do.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

try {
  const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: __dirname, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  if (path.resolve(root) === path.resolve(__dirname, '..')) execFileSync('git', ['config', 'core.hooksPath', '.githooks'], { cwd: root });
} catch {
  // not a git checkout
}
