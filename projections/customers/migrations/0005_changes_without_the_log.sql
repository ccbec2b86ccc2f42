-- What forgetting needs of a customer's changes without reading the log, which may not be in this
-- database (EventStoreDB): the event id of each customer chunk (its personal-data list's key) and
-- the external id each change was sent with (datasync messages copy records with it).
ALTER TABLE customer_changes ADD COLUMN ext text;
CREATE TABLE customer_chunks (
  position bigint PRIMARY KEY,
  event_id uuid NOT NULL
);
