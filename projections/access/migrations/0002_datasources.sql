-- Datasources of integrations (legacy plugins import through them), in the order they were created.
CREATE TABLE access_datasources (
  datasource_id text PRIMARY KEY,
  integration_id text NOT NULL,
  name text NOT NULL,
  datatype text NOT NULL,
  datasource jsonb NOT NULL,
  log_position bigint NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX access_datasources_integration ON access_datasources (integration_id, log_position);
