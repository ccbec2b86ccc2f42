export * from './product-import';
