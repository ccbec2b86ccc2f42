-- One row per product and language: a row sent with a `language` is that language's variant
-- (Magento sends one row per store view); a row without one is the product's default row ('').
CREATE TABLE products (
  external_id text NOT NULL,
  language text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (external_id, language)
);
CREATE INDEX products_sku ON products ((data->>'sku')) WHERE data ? 'sku';
CREATE INDEX products_ean ON products ((data->>'ean')) WHERE data ? 'ean';
