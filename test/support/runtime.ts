import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger, loadConfig, type AppConfig, type Logger } from '#mds/platform';
import { openRuntime, type Runtime } from '#mds/runtime';
import { Projector, type Projection } from '#mds/projections';
import { createTestDatabase, eventLogEnv, type TestDatabase } from './database';

export interface TestRuntime extends Runtime {
  db: TestDatabase;
  /** Every log line written so far (JSON), for assertions on logging. */
  logLines: string[];
}

export function captureLogger(lines: string[], level = 'info'): Logger {
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return createLogger(level, 'mds-test', sink);
}

/** A runtime on a fresh database of the test server (never the embedded boot path). */
export async function openTestRuntime(
  options: { projections?: Projection[]; env?: Record<string, string>; config?: Partial<AppConfig>; database?: TestDatabase } = {},
): Promise<TestRuntime> {
  const db = options.database ?? (await createTestDatabase());
  // Checkpoints of the audit chain only where a test asks for them: they are events of the log.
  const keys = { MDS_SECRET_KEY: randomBytes(32).toString('hex'), MDS_AUDIT_SIGNING_KEY: randomBytes(32).toString('hex'), MDS_AUDIT_CHECKPOINT_MS: '0' };
  const config = { ...loadConfig({ ...keys, ...eventLogEnv(db.url), ...options.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' }), ...options.config };
  const logLines: string[] = [];
  const runtime = await openRuntime(config, { logger: captureLogger(logLines, config.logLevel), projections: options.projections ?? [], role: 'test', poolSize: 8 });
  const closeRuntime = runtime.close.bind(runtime);
  return Object.assign(runtime, {
    db,
    logLines,
    async close() {
      await closeRuntime();
      await db.drop();
    },
  });
}

/** A test runtime whose projections a running projector applies; `close` stops the projector first. */
export async function openProjectingRuntime(options: Parameters<typeof openTestRuntime>[0] = {}): Promise<TestRuntime> {
  const rt = await openTestRuntime(options);
  const projector = new Projector(rt.runnerDeps(), rt.projections);
  await projector.start();
  const closeRuntime = rt.close.bind(rt);
  return Object.assign(rt, {
    async close() {
      await projector.stop();
      await closeRuntime();
    },
  });
}
