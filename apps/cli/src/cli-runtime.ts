import { InvalidArgumentError } from 'commander';
import { createLogger, loadConfig } from '#mds/platform';
import { openRuntime, type Runtime } from '#mds/runtime';

export async function withRuntime<T>(fn: (runtime: Runtime) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const runtime = await openRuntime(config, { logger: createLogger(process.env.LOG_LEVEL ?? 'warn'), role: 'cli', poolSize: 4 });
  try {
    return await fn(runtime);
  } finally {
    await runtime.close();
  }
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number >= 0');
  return n;
}
