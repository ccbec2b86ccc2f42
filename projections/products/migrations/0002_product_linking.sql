-- Products created from events and sales (spec "Product linking"): auto_created until a product
-- import names them. Lookups by sku/ean consider imported products only, and each (sku, ean) is
-- linked once, for good: a product imported later with that sku/ean is not matched to it.
ALTER TABLE products ADD COLUMN auto_created boolean NOT NULL DEFAULT false;

CREATE TABLE product_links (
  sku text NOT NULL,
  ean text NOT NULL,
  external_id text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (sku, ean)
);
