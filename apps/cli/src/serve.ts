import 'reflect-metadata';
import { createApiApp } from '#mds/api';
import { OutletWorker } from '#mds/outlet-worker';
import { createLogger, loadConfig, prettyDestination, type AppConfig } from '#mds/platform';
import { banner } from './banner';
import { bootstrapAdmin, openRuntime } from '#mds/runtime';
import { Projector } from '#mds/projections';

export type Part = 'api' | 'projector' | 'outlet-worker';

/** Runs the given parts in this process until SIGINT/SIGTERM, then stops them in reverse order. */
export async function serve(parts: Part[], config: AppConfig = loadConfig()): Promise<void> {
  const logger = createLogger(config.logLevel, 'mds', config.logFormat === 'pretty' ? prettyDestination() : undefined);
  const started = Date.now();
  const runtime = await openRuntime(config, { logger, role: parts.length > 1 ? 'all' : parts[0] });
  const stops: Array<() => Promise<unknown>> = [];
  let stopping = false;
  const shutdown = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    for (const stop of stops.reverse()) await stop().catch((err) => logger.error({ err: (err as Error).message }, 'stop failed'));
    await runtime.close().catch((err) => logger.error({ err: (err as Error).message }, 'closing the runtime failed'));
    logger.info('stopped');
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  try {
    await bootstrapAdmin(runtime);
    if (parts.includes('projector')) {
      const projector = new Projector(runtime.runnerDeps(), runtime.projections);
      await projector.start();
      stops.push(() => projector.stop());
    }
    if (parts.includes('outlet-worker')) {
      const worker = new OutletWorker(runtime);
      await worker.start();
      stops.push(() => worker.stop());
    }
    if (parts.includes('api')) {
      const app = await createApiApp(runtime);
      await app.listen(config.port, config.host);
      stops.push(() => app.close());
      const address = app.getHttpServer().address();
      const port = typeof address === 'object' && address ? address.port : config.port;
      // For a person at a terminal: what runs where, and how to begin, written with the line saying it
      // listens (nothing comes between them).
      const welcome = config.logFormat === 'pretty' ? await banner(runtime, port) : undefined;
      logger.info({ port, parts, ms: Date.now() - started }, `listening on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`);
      if (welcome) process.stdout.write(welcome);
    } else {
      logger.info({ parts, ms: Date.now() - started }, 'running');
    }
  } catch (err) {
    logger.error({ err: (err as Error).message }, 'start failed');
    await shutdown('start failure', 1);
  }
}

