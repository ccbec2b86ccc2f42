CREATE TABLE shops (
  external_id text PRIMARY KEY,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
