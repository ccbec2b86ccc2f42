// Child process of the projection crash test: runs the tally projection until killed.
import { loadConfig } from '#mds/platform';
import { openRuntime } from '#mds/runtime';
import { Projector } from '#mds/projections';
import { tallyProjection } from '../fixtures/tally/tally.projection';

async function main() {
  const config = loadConfig();
  const runtime = await openRuntime(config, { projections: [tallyProjection()], role: 'crash-projector', poolSize: 2 });
  const projector = new Projector(runtime.runnerDeps(), runtime.projections);
  await projector.start();
  process.stdout.write('ready\n');
  process.on('SIGTERM', async () => {
    await projector.stop();
    await runtime.close();
    process.exit(0);
  });
}

main().catch((err) => {
  process.stderr.write(`crash-projector: ${(err as Error).stack}\n`);
  process.exit(1);
});
