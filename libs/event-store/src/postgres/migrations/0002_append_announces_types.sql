-- Appends a batch of appends (each {stream, expected, events}) in one transaction: the service
-- groups concurrent appends so their commits share one WAL flush. Each append is checked on its own
-- and answered on its own row; a refused append does not affect the others.
-- expected: -1 any, -2 no stream, -3 stream exists, >= 0 the stream's last revision.
-- status: ok | duplicate (every event id already stored in that stream: a retry, nothing appended)
--       | wrong_expected_revision (detail = actual revision, -1 for none) | idempotency_conflict.
-- It reaches into the batch with jsonpath rather than `->`, which copies the whole append (an import
-- chunk is some 300 KB) at every step: jsonpath walks straight to the ids, types and events it needs.
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
    v_total := v_total + v_count;
    v_current := v_current + v_count;
    v_revs := jsonb_set(v_revs, ARRAY[v_stream], to_jsonb(v_current));
    v_next[i] := v_current;
    v_last[i] := v_total;
  END LOOP;

  IF v_total > 0 THEN
    -- The head lock comes last and is held to commit: positions become visible in order.
    UPDATE mds_log_head SET position = position + v_total RETURNING position INTO v_head;
    INSERT INTO mds_events (position, stream, revision, id, type, data, metadata)
    SELECT v_head - v_total + acc.off + e.n, jsonb_path_query_first(p_appends, '$[$i].stream', jsonb_build_object('i', acc.i)) #>> '{}', acc.base + e.n,
           (e.ev->>'id')::uuid, e.ev->>'type', e.ev->'data', e.ev->'metadata'
      FROM unnest(v_acc, v_acc_base, v_acc_off) AS acc(i, base, off)
      CROSS JOIN LATERAL jsonb_path_query(p_appends, '$[$i].events[*]', jsonb_build_object('i', acc.i)) WITH ORDINALITY AS e(ev, n);
    UPDATE mds_streams t SET revision = (v_revs->>t.stream)::bigint
     WHERE t.stream = ANY (v_names) AND t.revision <> (v_revs->>t.stream)::bigint;
    -- "<head>:<first position>:<types>": a reader that takes none of these types can move past the
    -- range without reading it (the types are left out when too long for a notification).
    SELECT string_agg(DISTINCT t #>> '{}', ',') INTO v_types
      FROM unnest(v_acc) AS acc(i)
      CROSS JOIN LATERAL jsonb_path_query(p_appends, '$[$i].events[*].type', jsonb_build_object('i', acc.i)) AS t;
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
