-- A datatarget's retention_days: delivered messages older than that have their payload dropped
-- (datatargets/retention.ts); null keeps them.
ALTER TABLE datatargets ADD COLUMN retention_days int;

-- Each post of messages: its numbers, the log event whose kept list holds them, and when it came.
CREATE TABLE datatarget_posts (
  datatarget_id text NOT NULL,
  first_message_number bigint NOT NULL,
  last_message_number bigint NOT NULL,
  event_id uuid NOT NULL,
  posted_at timestamptz NOT NULL,
  PRIMARY KEY (datatarget_id, first_message_number)
);
CREATE INDEX datatarget_posts_time ON datatarget_posts (posted_at);
