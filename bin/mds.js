#!/usr/bin/env node
// `npx mds ...` entry: runs the compiled CLI (built by `npm run build`, `npm start` or `npm test`).
const path = require('node:path');
const fs = require('node:fs');
const main = path.join(__dirname, '..', 'dist', 'apps', 'cli', 'src', 'main.js');
if (!fs.existsSync(main)) {
  process.stderr.write('mds: not built yet; run `npm run build` first\n');
  process.exit(1);
}
const { buildCli } = require(main);
buildCli()
  .parseAsync(process.argv)
  .catch((err) => {
    process.stderr.write(`mds: ${err.message}\n`);
    process.exit(1);
  });
