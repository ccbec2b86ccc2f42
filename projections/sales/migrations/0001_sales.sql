-- Sale transactions: transaction-level fields merged over the imports of the transaction, rows as
-- the latest import sent them, the total computed (sale_total when the latest import sends it, else
-- the rows' totals minus the sale discount). in_statistics is false for CANCELLED and CLOSED.
CREATE TABLE sales (
  sale_external_id text PRIMARY KEY,
  data jsonb NOT NULL,
  products jsonb NOT NULL,
  sale_total bigint NOT NULL,
  sale_state text NOT NULL,
  sale_date timestamptz,
  customer_external_id text,
  phone text,
  email text,
  in_statistics boolean NOT NULL,
  is_deleted boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX sales_date ON sales (sale_date, sale_external_id);
CREATE INDEX sales_customer ON sales (customer_external_id) WHERE customer_external_id IS NOT NULL;
CREATE INDEX sales_email ON sales (email) WHERE email IS NOT NULL;
CREATE INDEX sales_phone ON sales (phone) WHERE phone IS NOT NULL;
