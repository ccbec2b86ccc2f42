const fs = require('node:fs');

module.exports = async function globalTeardown() {
  const pg = globalThis.__MDS_TEST_PG__;
  if (!pg) return;
  await pg.handle.stop();
  fs.rmSync(pg.dataDir, { recursive: true, force: true });
};
