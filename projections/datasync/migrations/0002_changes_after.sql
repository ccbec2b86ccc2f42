-- Where in the log each datatarget was created and deleted: it gets the changes between the two
-- (a page applies them as a set, so a datatarget created or deleted inside it gets its part only).
ALTER TABLE datasync_targets ADD COLUMN created_position bigint NOT NULL DEFAULT 0;
ALTER TABLE datasync_targets ADD COLUMN deleted_position bigint;
-- Each customer a message was made for, as of its last change seen here (the merge model's
-- customer): the next change of it is folded from this copy when nothing changed it in between.
CREATE TABLE datasync_customers (
  customer_id bigint PRIMARY KEY,
  position bigint NOT NULL,
  n int NOT NULL,
  state jsonb NOT NULL
);
