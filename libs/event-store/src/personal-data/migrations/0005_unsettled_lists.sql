-- A list is written before its event is appended. Until that append is known to have recorded the
-- event, the list is marked unsettled with where the event would be (stream, revision when known):
-- after an unknown outcome a sweep reads the log there and deletes lists whose event never came.
ALTER TABLE mds_personal_data ADD COLUMN unsettled_at timestamptz, ADD COLUMN unsettled_stream text, ADD COLUMN unsettled_revision bigint;
CREATE INDEX mds_personal_data_unsettled ON mds_personal_data (unsettled_at) WHERE unsettled_at IS NOT NULL;
