import 'reflect-metadata';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus, CqrsModule } from '@nestjs/cqrs';
import { AccessModule } from '#mds/access';
import { CustomersModule } from '#mds/customers';
import { createLogger, loadConfig } from '#mds/platform';
import {
  ACCESS_READ_MODEL,
  CUSTOMERS_READ_MODEL,
  ProjectionTimeoutError,
  READ_MODEL_PROGRESS,
  ReadModelsModule,
  SETTINGS_READ_MODEL,
  type AccessReadModel,
  type CustomersReadModel,
  type ReadModelProgress,
  type SettingsReadModel,
} from '#mds/projections';
import { openRuntime, RuntimeModule, type Runtime } from '#mds/runtime';

// Loaded by the commands' actions only, never by `mds --help`: this is where the service comes in.

export async function withRuntime<T>(fn: (runtime: Runtime) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const runtime = await openRuntime(config, { logger: createLogger(process.env.LOG_LEVEL ?? 'warn'), role: 'cli', poolSize: 4 });
  try {
    return await fn(runtime);
  } finally {
    await runtime.close();
  }
}

/** The contexts whose commands the CLI sends (users, tokens, forgetting). */
@Module({})
class CliModule {
  static forRoot(runtime: Runtime): DynamicModule {
    return { module: CliModule, imports: [RuntimeModule.forRoot(runtime), ReadModelsModule.forRoot(runtime), CqrsModule.forRoot(), AccessModule, CustomersModule] };
  }
}

export interface CliContext {
  /** Every change goes through the command bus, to the context's handler, as it does from the API. */
  commands: CommandBus;
  access: AccessReadModel;
  customers: CustomersReadModel;
  settings: SettingsReadModel;
  progress: ReadModelProgress;
  /** MDS_LOGIN_LOCKOUT_FAILURES: failed logins in a row that lock an account. */
  lockoutFailures: number;
}

/** Waits until the access read model has everything up to `position`; false when no projector got there in time. */
export async function accessAt(progress: ReadModelProgress, position: number, timeoutS: number): Promise<boolean> {
  try {
    await progress.reached('access', position, timeoutS * 1000);
    return true;
  } catch (err) {
    if (err instanceof ProjectionTimeoutError) return false;
    throw err;
  }
}

/** Waits for the access read model to catch up with the log before a listing; says so when it did not. */
export async function accessCaughtUp(progress: ReadModelProgress, timeoutS: number): Promise<void> {
  if (!(await accessAt(progress, await progress.head(), timeoutS))) {
    process.stderr.write(`the access read model is behind the log (is a projector running?): the latest changes may be missing\n`);
  }
}

/** Runs `fn` with a Nest application context of the contexts the CLI writes to, and the query classes it reads. */
export function withCommands<T>(fn: (cli: CliContext) => Promise<T>): Promise<T> {
  return withRuntime(async (runtime) => {
    const app = await NestFactory.createApplicationContext(CliModule.forRoot(runtime), { logger: false, abortOnError: false });
    try {
      return await fn({
        commands: app.get(CommandBus),
        access: app.get(ACCESS_READ_MODEL),
        customers: app.get(CUSTOMERS_READ_MODEL),
        settings: app.get(SETTINGS_READ_MODEL),
        progress: app.get(READ_MODEL_PROGRESS),
        lockoutFailures: runtime.accessDeps.lockoutFailures,
      });
    } finally {
      await app.close();
    }
  });
}
