export * from './coerce';
export * from './import-run';
