export * from './runtime';
export * from './bootstrap-admin';
export { RUNTIME, RuntimeModule } from './runtime.module';
export { serviceHealth } from './health';
