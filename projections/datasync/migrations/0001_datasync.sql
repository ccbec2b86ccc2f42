-- Datasync datatargets: every imported change of their datatype, from their creation on, becomes a
-- message. Numbers are assigned here in log order, so a rebuild numbers them the same;
-- after_update is the log position of the change.
CREATE TABLE datasync_targets (
  datatarget_id text PRIMARY KEY,
  datatype text NOT NULL,
  last_message_number bigint NOT NULL DEFAULT 0,
  is_deleted boolean NOT NULL DEFAULT false
);

CREATE TABLE datasync_messages (
  datatarget_id text NOT NULL,
  message_number bigint NOT NULL,
  message jsonb NOT NULL,
  after_update text NOT NULL,
  PRIMARY KEY (datatarget_id, message_number)
);
