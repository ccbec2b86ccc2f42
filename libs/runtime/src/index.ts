export * from './runtime';
export * from './bootstrap-admin';
