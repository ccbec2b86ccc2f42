-- The log is append-only: an UPDATE, DELETE or TRUNCATE of its events is refused, whoever asks.
-- Forgetting rewrites the personal-data store beside the log, never an event (README "Forgetting");
-- signed checkpoints of the audit chain tell a change made with the trigger disabled.
CREATE FUNCTION mds_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the event log is append-only: % on mds_events is refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER mds_events_append_only BEFORE UPDATE OR DELETE ON mds_events FOR EACH ROW EXECUTE FUNCTION mds_events_append_only();
CREATE TRIGGER mds_events_no_truncate BEFORE TRUNCATE ON mds_events FOR EACH STATEMENT EXECUTE FUNCTION mds_events_append_only();
