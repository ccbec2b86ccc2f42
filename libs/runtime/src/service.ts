import { createLogger, loadConfig, prettyDestination, type AppConfig } from '#mds/platform';
import { Projector } from '#mds/projections';
import { banner } from './banner';
import { bootstrapAdmin } from './bootstrap-admin';
import { openRuntime, type Runtime } from './runtime';

export type PartName = 'api' | 'projector' | 'outlet-worker';

/**
 * A part of the service a process runs: the projections, the outlet worker, the HTTP API. Each app
 * brings its own (apps/api's API_PART, apps/outlet-worker's OUTLET_WORKER_PART); the composition root
 * runs them, so no app needs another to start.
 */
export interface ServicePart {
  name: PartName;
  /** Starts the part on the runtime; resolves with how to stop it, and the port it listens on (the API). */
  start(runtime: Runtime): Promise<{ stop(): Promise<unknown>; port?: number }>;
}

/** The projections, each applied by one active projector (a lease; others stand by). */
export const PROJECTOR_PART: ServicePart = {
  name: 'projector',
  async start(runtime) {
    const projector = new Projector(runtime.runnerDeps(), runtime.projections);
    await projector.start();
    return { stop: () => projector.stop() };
  },
};

// The API last: it says it listens once everything behind it runs.
const START_ORDER: PartName[] = ['projector', 'outlet-worker', 'api'];

/** Runs the given parts in this process until SIGINT/SIGTERM, then stops them in reverse order. */
export async function runService(parts: ServicePart[], config: AppConfig = loadConfig()): Promise<void> {
  const names = parts.map((p) => p.name);
  const logger = createLogger(config.logLevel, 'mds', config.logFormat === 'pretty' ? prettyDestination() : undefined);
  const started = Date.now();
  const runtime = await openRuntime(config, { logger, role: parts.length > 1 ? 'all' : names[0] });
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
    let port: number | undefined;
    for (const part of [...parts].sort((a, b) => START_ORDER.indexOf(a.name) - START_ORDER.indexOf(b.name))) {
      const running = await part.start(runtime);
      stops.push(() => running.stop());
      port = running.port ?? port;
    }
    if (port !== undefined) {
      // For a person at a terminal: what runs where, and how to begin, written with the line saying it
      // listens (nothing comes between them).
      const welcome = config.logFormat === 'pretty' ? await banner(runtime, port) : undefined;
      logger.info({ port, parts: names, ms: Date.now() - started }, `listening on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`);
      if (welcome) process.stdout.write(welcome);
    } else {
      logger.info({ parts: names, ms: Date.now() - started }, 'running');
    }
  } catch (err) {
    logger.error({ err: (err as Error).message }, 'start failed');
    await shutdown('start failure', 1);
  }
}
