export * from './coerce';
export * from './import-run';
export * from './dates';
export * from './phone';
