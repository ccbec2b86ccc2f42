-- What datasync datatargets of products receive: inside a datatarget's window of the log
-- (product_datasync_windows: from its creation to its deletion), each change of a product row with the row
-- after it: an import's record (its position and place in its chunk), a product created for an
-- event's or a sale row's reference, a row a bulk update reached (n 0).
CREATE TABLE product_changes (
  position bigint NOT NULL,
  n int NOT NULL,
  external_id text NOT NULL,
  language text NOT NULL,
  state jsonb NOT NULL,
  PRIMARY KEY (position, n, external_id, language)
);
CREATE TABLE product_datasync_windows (
  datatarget_id text PRIMARY KEY,
  created_position bigint NOT NULL,
  deleted_position bigint
);
