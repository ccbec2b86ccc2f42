-- The checkpoint's compare-and-set for a page that wrote rows, sent with the COMMIT in one round
-- trip (`SELECT mds_move_checkpoint(...); COMMIT`): when nothing moves (another runner moved the
-- checkpoint, or a switch retired the generation) it raises MDSCP, the COMMIT after it is skipped and
-- the runner rolls the page back. Its notification is delivered at commit.
CREATE FUNCTION mds_move_checkpoint(p_name text, p_generation int, p_from bigint, p_to bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE mds_projections SET checkpoint = p_to, updated_at = now()
   WHERE name = p_name AND generation = p_generation AND checkpoint = p_from AND state <> 'retired';
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the checkpoint of % generation % is no longer at %', p_name, p_generation, p_from USING ERRCODE = 'MDSCP';
  END IF;
  PERFORM pg_notify('mds_checkpoints', p_name || ':' || p_to);
END
$$;
