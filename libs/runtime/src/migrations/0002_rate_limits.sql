-- Requests of each access token in its current one-minute window, counted by every API process alike
-- (MDS_RATE_LIMIT_PER_MINUTE): one row per token, updated in place (HOT: no indexed column changes).
-- UNLOGGED: a count is not worth a WAL record per request; a crash of the server empties the table,
-- which gives every token a fresh minute.
CREATE UNLOGGED TABLE mds_rate_limits (
  token_id text PRIMARY KEY,
  window_start timestamptz NOT NULL,
  count int NOT NULL
) WITH (fillfactor = 50);
