-- Where in the log the import that brought each transaction in is (its first chunk naming it): a
-- customer's export names that run (GET /api/data/customers/{external_id}/export/).
ALTER TABLE sales ADD COLUMN position bigint;
