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

-- p_expected: -1 any, -2 no stream, -3 stream exists, >= 0 the stream's last revision.
-- Raises MDS01 (wrong expected revision, DETAIL = actual revision), MDS02 (empty append),
-- MDS03 (some but not all event ids already stored).
CREATE FUNCTION mds_append(p_stream text, p_expected bigint, p_events jsonb)
RETURNS TABLE (next_revision bigint, last_position bigint, duplicate boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_count int := jsonb_array_length(p_events);
  v_current bigint;
  v_existing int;
  v_same_stream int;
  v_head bigint;
BEGIN
  IF v_count = 0 THEN
    RAISE EXCEPTION 'an append needs at least one event' USING ERRCODE = 'MDS02';
  END IF;

  INSERT INTO mds_streams (stream, revision) VALUES (p_stream, -1) ON CONFLICT (stream) DO NOTHING;
  SELECT s.revision INTO v_current FROM mds_streams s WHERE s.stream = p_stream FOR UPDATE;

  -- With the stream locked, a concurrent retry of the same events sees the first one's commit.
  SELECT count(*), count(*) FILTER (WHERE e.stream = p_stream)
    INTO v_existing, v_same_stream
    FROM mds_events e
   WHERE e.id IN (SELECT (x->>'id')::uuid FROM jsonb_array_elements(p_events) x);
  IF v_existing > 0 THEN
    IF v_existing = v_count AND v_same_stream = v_count THEN
      RETURN QUERY
        SELECT max(e.revision), max(e.position), true
          FROM mds_events e
         WHERE e.id IN (SELECT (x->>'id')::uuid FROM jsonb_array_elements(p_events) x);
      RETURN;
    END IF;
    RAISE EXCEPTION '% of % event ids are already stored%', v_existing, v_count,
      CASE WHEN v_same_stream < v_existing THEN ' in another stream' ELSE '' END
      USING ERRCODE = 'MDS03';
  END IF;

  IF (p_expected = -2 AND v_current <> -1)
     OR (p_expected = -3 AND v_current = -1)
     OR (p_expected >= 0 AND v_current <> p_expected) THEN
    RAISE EXCEPTION 'wrong expected revision for stream %', p_stream
      USING ERRCODE = 'MDS01', DETAIL = v_current::text;
  END IF;

  UPDATE mds_log_head SET position = position + v_count RETURNING position INTO v_head;

  INSERT INTO mds_events (position, stream, revision, id, type, data, metadata)
  SELECT v_head - v_count + x.n, p_stream, v_current + x.n, (x.e->>'id')::uuid, x.e->>'type', x.e->'data', x.e->'metadata'
    FROM jsonb_array_elements(p_events) WITH ORDINALITY AS x(e, n);

  UPDATE mds_streams SET revision = v_current + v_count WHERE stream = p_stream;
  PERFORM pg_notify('mds_events', v_head::text);

  RETURN QUERY SELECT v_current + v_count, v_head, false;
END
$$;
