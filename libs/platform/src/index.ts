export * from './config';
export * from './database';
export * from './embedded-postgres';
export * from './errors';
export * from './logging';
export * from './migrations';
export * from './notifications';
export * from './secrets';
