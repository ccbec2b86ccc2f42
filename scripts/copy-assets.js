// tsc emits only JavaScript; SQL migrations are read at run time beside the compiled code.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const roots = ['apps', 'libs', 'projections', 'test'];

function copySql(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const from = path.join(dir, entry.name);
    if (entry.isDirectory()) copySql(from);
    else if (entry.name.endsWith('.sql')) {
      const to = path.join(root, 'dist', path.relative(root, from));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to);
    }
  }
}

for (const r of roots) if (fs.existsSync(path.join(root, r))) copySql(path.join(root, r));
