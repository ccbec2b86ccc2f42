export * from './product-import';
export { ImportProductsCommand } from './import-products/import-products.command';
export { ImportProductsHandler } from './import-products/import-products.handler';
export { CatalogModule } from './catalog.module';
