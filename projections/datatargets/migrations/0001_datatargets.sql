-- Datatargets, their posted messages (numbers assigned in the command, stored in the log), their
-- outlets with the delivery state the outlet stream carries, and the outlet log (one entry per attempt).
CREATE TABLE datatargets (
  datatarget_id text PRIMARY KEY,
  datatarget_type text NOT NULL,
  datatype text,
  name text NOT NULL,
  description text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  last_message_number bigint NOT NULL DEFAULT 0,
  is_deleted boolean NOT NULL DEFAULT false
);

CREATE TABLE datatarget_messages (
  datatarget_id text NOT NULL,
  message_number bigint NOT NULL,
  message jsonb NOT NULL,
  PRIMARY KEY (datatarget_id, message_number)
);

CREATE TABLE outlets (
  outlet_id text PRIMARY KEY,
  datatarget_id text NOT NULL,
  definition jsonb NOT NULL,
  state jsonb NOT NULL,
  is_deleted boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL
);
CREATE INDEX outlets_datatarget ON outlets (datatarget_id, created_at);

CREATE TABLE outlet_log (
  outlet_id text NOT NULL,
  entry_number bigint NOT NULL,
  entry jsonb NOT NULL,
  http_request text,
  http_reply text,
  PRIMARY KEY (outlet_id, entry_number)
);
