// Starts one PostgreSQL for the whole test run: DATABASE_URL when given, else the embedded one.
// Each test file creates its own database on it (see database.ts).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async function globalSetup() {
  if (process.env.DATABASE_URL) {
    process.env.MDS_TEST_ADMIN_URL = process.env.DATABASE_URL;
    return;
  }
  const { startEmbeddedPostgres } = require('../../dist/libs/platform/src/embedded-postgres.js');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-test-pg-'));
  const started = Date.now();
  const handle = await startEmbeddedPostgres({ dataDir, database: 'postgres' });
  process.stderr.write(`\nembedded PostgreSQL for tests on port ${handle.port} (${Date.now() - started} ms)\n`);
  process.env.MDS_TEST_ADMIN_URL = handle.url;
  globalThis.__MDS_TEST_PG__ = { handle, dataDir };
};
