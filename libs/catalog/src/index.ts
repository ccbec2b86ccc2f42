export * from './product-import';
export { PRODUCT_FIELDS, PRODUCT_RECORD } from './product.fields';
export { ImportProductsCommand } from './import-products/import-products.command';
export { ImportProductsHandler } from './import-products/import-products.handler';
export { CatalogModule } from './catalog.module';
