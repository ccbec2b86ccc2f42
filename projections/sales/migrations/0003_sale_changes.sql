-- What datasync datatargets of sales receive: inside a datatarget's window of the log
-- (sale_datasync_windows: from its creation to its deletion), each change of a transaction with the
-- transaction after it: an import's record (its position and place in its chunk), a transaction a
-- bulk update reached (n 0).
CREATE TABLE sale_changes (
  position bigint NOT NULL,
  n int NOT NULL,
  sale_external_id text NOT NULL,
  state jsonb NOT NULL,
  PRIMARY KEY (position, n, sale_external_id)
);
CREATE TABLE sale_datasync_windows (
  datatarget_id text PRIMARY KEY,
  created_position bigint NOT NULL,
  deleted_position bigint
);
