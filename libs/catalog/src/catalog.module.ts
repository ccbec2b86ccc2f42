import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ImportProductsHandler } from './import-products/import-products.handler';

/** The catalog (products) context's command handlers. */
@Module({ imports: [CqrsModule], providers: [ImportProductsHandler] })
export class CatalogModule {}
