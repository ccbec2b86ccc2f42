import * as net from 'node:net';
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

/** Why the API could not listen on PORT, in a line that says what to do; undefined for other errors. */
export function listenRefusal(err: unknown, port: number): string | undefined {
  const code = (err as { code?: string } | null)?.code;
  if (code === 'EADDRINUSE') return `port ${port} is in use (set PORT to another)`;
  if (code === 'EACCES') return `port ${port} needs privileges this user lacks (set PORT to another, above 1023)`;
  return undefined;
}

/** Binds PORT for a moment: refused, the start stops before it boots a database for nothing. */
function checkPort(port: number, host: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err) => reject(new Error(listenRefusal(err, port) ?? `cannot listen on ${host}:${port}: ${err.message}`)));
    probe.listen({ port, host }, () => probe.close(() => resolve()));
  });
}

/**
 * Runs the given parts in this process until SIGINT/SIGTERM, then stops them in reverse order. A PORT
 * the API cannot listen on rejects before anything starts (the CLI prints it as one line).
 */
export async function runService(parts: ServicePart[], config: AppConfig = loadConfig()): Promise<void> {
  const names = parts.map((p) => p.name);
  if (names.includes('api')) await checkPort(config.port, config.host);
  const logger = createLogger(config.logLevel, 'mds', config.logFormat === 'pretty' ? prettyDestination() : undefined);
  const started = Date.now();
  // This process stops the embedded PostgreSQL itself, last, so Ctrl-C is not passed on to it. The
  // handlers are in place before it boots; a signal while the service starts waits for the start
  // (no part may be left running on a closed pool), then stops what started.
  const opening = openRuntime(config, { logger, role: parts.length > 1 ? 'all' : names[0], handlesSignals: true });
  let starting: Promise<unknown> = Promise.resolve();
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
    const opened = await opening.catch(() => undefined);
    await starting.catch(() => undefined);
    for (const stop of stops.reverse()) await stop().catch((err) => logger.error({ err: (err as Error).message }, 'stop failed'));
    await opened?.close().catch((err) => logger.error({ err: (err as Error).message }, 'closing the runtime failed'));
    logger.info('stopped');
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  const runtime = await opening;
  const startParts = async (): Promise<number | undefined> => {
    await bootstrapAdmin(runtime);
    let port: number | undefined;
    for (const part of [...parts].sort((a, b) => START_ORDER.indexOf(a.name) - START_ORDER.indexOf(b.name))) {
      if (stopping) break;
      const running = await part.start(runtime);
      stops.push(() => running.stop());
      port = running.port ?? port;
    }
    return port;
  };
  try {
    const port = await (starting = startParts());
    if (stopping) return;
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
    if (stopping) return;
    // Taken since the check above (another process was quicker): the same one line, then it stops.
    const refusal = listenRefusal(err, config.port);
    if (refusal) process.stderr.write(`mds: ${refusal}\n`);
    else logger.error({ err: (err as Error).message }, 'start failed');
    await shutdown('start failure', 1);
  }
}
