export * from './coerce';
export * from './import-run';
export * from './dates';
export * from './phone';
export * from './company-fields';
export * from './id-sequence';
export * from './data-query';
