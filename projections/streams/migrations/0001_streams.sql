-- Every stream of the log with its category, last revision and size: the index behind
-- `mds events` look-ups and, later, the audit API's stream listing.
CREATE TABLE streams (
  stream text PRIMARY KEY,
  category text NOT NULL,
  revision bigint NOT NULL,
  event_count bigint NOT NULL,
  first_position bigint NOT NULL,
  last_position bigint NOT NULL,
  last_type text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX streams_category ON streams (category, stream);
