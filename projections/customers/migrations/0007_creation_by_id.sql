-- A customer's first change, the record that made it, is not a row of customer_changes: the customer's
-- id names it (position * 10000 + n). What forgetting needs of it is the external id it was sent with.
ALTER TABLE customers ADD COLUMN created_ext text;
