-- A list kept whole: the data key of the event it was taken from (the messages of a datatarget post),
-- null for a list of records' personal fields.
ALTER TABLE mds_personal_data ADD COLUMN whole text;
