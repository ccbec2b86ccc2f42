-- The changes a page of the log made (datasync datatargets make a message of each): found by position.
CREATE INDEX customer_changes_position ON customer_changes (position);
