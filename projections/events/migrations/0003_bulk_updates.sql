-- What datasync datatargets of events receive besides the imported events themselves: inside a
-- datatarget's window of the log (event_datasync_windows: from its creation to its deletion), each event a
-- bulk update reached, with the event after it.
CREATE TABLE event_bulk_updates (
  position bigint NOT NULL,
  id bigint NOT NULL,
  state jsonb NOT NULL,
  PRIMARY KEY (position, id)
);
CREATE TABLE event_datasync_windows (
  datatarget_id text PRIMARY KEY,
  created_position bigint NOT NULL,
  deleted_position bigint
);
