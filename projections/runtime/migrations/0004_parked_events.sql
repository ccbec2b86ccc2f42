-- Events a projection could not apply after a few tries (a dead-letter list per generation): the
-- projection went on past them. `mds projections retry` applies them again and removes those it could.
CREATE TABLE mds_parked_events (
  projection text NOT NULL,
  generation int NOT NULL,
  position bigint NOT NULL,
  event_id text NOT NULL,
  stream text NOT NULL,
  type text NOT NULL,
  error text NOT NULL,
  sqlstate text,
  attempts int NOT NULL,
  parked_at timestamptz NOT NULL DEFAULT now(),
  retried_at timestamptz,
  PRIMARY KEY (projection, generation, position),
  FOREIGN KEY (projection, generation) REFERENCES mds_projections (name, generation) ON DELETE CASCADE
);
CREATE INDEX mds_parked_events_stream ON mds_parked_events (stream);

-- The last failure of each generation, kept so /health and /metrics tell a projection that keeps
-- failing (a database it cannot write, an event being retried) from one that is only behind.
ALTER TABLE mds_projections
  ADD COLUMN failures bigint NOT NULL DEFAULT 0,
  ADD COLUMN last_error text,
  ADD COLUMN last_failed_at timestamptz;

-- Taken at the start of a page's transaction: the generation is not retired, and stays (a KEY SHARE
-- lock: a switch, which locks the row for update, and the drop of a retired schema, which deletes
-- it, wait for the page), so no page is applied to a schema being dropped. MDSCP as a moved checkpoint.
CREATE FUNCTION mds_hold_generation(p_name text, p_generation int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM mds_projections WHERE name = p_name AND generation = p_generation AND state <> 'retired' FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'generation % of % is retired', p_generation, p_name USING ERRCODE = 'MDSCP';
  END IF;
END
$$;
