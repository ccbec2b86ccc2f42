-- Forgettable payloads: the personal fields of an event's records, kept apart from the log by the
-- event's id (records[i]: the i-th record's personal fields, or null). Forgetting rewrites a list.
CREATE TABLE mds_personal_data (
  event_id uuid PRIMARY KEY,
  records jsonb NOT NULL
);
