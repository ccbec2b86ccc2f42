-- What is kept of the identifiers forgetting erased (e-mails, phones, external ids): their keyed
-- hashes (HMAC under a key derived from the service key, which is not in the database), so a later
-- import sending one again can be told it starts a new customer. Beside the log like the lists: a
-- rebuild cannot compute them again (the lists hold markers by then), so no read model holds them.
CREATE TABLE mds_erased_identifiers (
  keyed_hash text PRIMARY KEY,
  kind text NOT NULL
);
