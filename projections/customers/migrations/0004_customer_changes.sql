-- Where each customer's changes are in the log: the chunk (its position) and the record in it (n,
-- from 1; 0 for a bulk update, which is one event). A customer's history reads these events back.
CREATE TABLE customer_changes (
  customer_id bigint NOT NULL,
  position bigint NOT NULL,
  n int NOT NULL,
  PRIMARY KEY (customer_id, position, n)
);
