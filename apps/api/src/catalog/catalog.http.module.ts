import { Module } from '@nestjs/common';
import { CatalogModule } from '#mds/catalog';
import { ProductsHttpController } from './products.http.controller';

@Module({ imports: [CatalogModule], controllers: [ProductsHttpController] })
export class CatalogHttpModule {}
