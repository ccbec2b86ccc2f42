-- One row per generation of a projection. Each generation owns a schema; public views named after
-- the projection's tables point at the live generation, so a rebuild swaps them in one transaction.
CREATE TABLE mds_projections (
  name text NOT NULL,
  generation int NOT NULL,
  version int NOT NULL,
  schema_name text NOT NULL UNIQUE,
  state text NOT NULL CHECK (state IN ('building', 'live', 'retired')),
  checkpoint bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (name, generation)
);
CREATE UNIQUE INDEX mds_projections_one_live ON mds_projections (name) WHERE state = 'live';
