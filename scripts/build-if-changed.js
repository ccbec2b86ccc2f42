// `npm start` and `npm test` build first; this skips the TypeScript compiler (seconds even with
// nothing to do) when no source, migration or config file changed since the last build.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');
const sources = ['apps', 'libs', 'projections', 'test/support', 'test/fixtures', 'bench', 'scripts'];
const files = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];

function newest(dir) {
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(p));
    else if (/\.(ts|js|sql|json)$/.test(entry.name)) latest = Math.max(latest, fs.statSync(p).mtimeMs);
  }
  return latest;
}

const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
const changed = Math.max(
  ...sources.filter((d) => fs.existsSync(path.join(root, d))).map((d) => newest(path.join(root, d))),
  ...files.filter((f) => fs.existsSync(path.join(root, f))).map((f) => fs.statSync(path.join(root, f)).mtimeMs),
);
if (built > changed) {
  process.stderr.write('build: nothing changed since the last build\n');
} else {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  fs.writeFileSync(stamp, `${new Date().toISOString()}\n`);
}
