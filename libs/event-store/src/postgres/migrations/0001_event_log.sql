-- The event log. Positions are gap-free and increase in commit order: an append takes the single
-- head row lock as its last step and keeps it until commit, so no event with a lower position can
-- become visible after one with a higher position, and a catch-up reader never skips a late commit.
CREATE TABLE mds_log_head (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  position bigint NOT NULL
);
INSERT INTO mds_log_head (id, position) VALUES (true, 0);

CREATE TABLE mds_streams (
  stream text PRIMARY KEY,
  revision bigint NOT NULL
);

CREATE TABLE mds_events (
  position bigint PRIMARY KEY,
  stream text NOT NULL,
  revision bigint NOT NULL,
  id uuid NOT NULL UNIQUE,
  type text NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (stream, revision)
);
CREATE INDEX mds_events_type_position ON mds_events (type, position);
