export * from './sale-import';
export * from './sale-state';
