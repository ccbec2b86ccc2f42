-- Whose a forgotten identifier was: the customer's id (no personal data), so records that named it
-- (sales, campaign events) still count for that customer, whose row stays, emptied.
ALTER TABLE forgotten_identifiers ADD COLUMN customer_id bigint;
