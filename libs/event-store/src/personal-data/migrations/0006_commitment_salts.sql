-- The salt of the commitment an event carries to its kept fields (metadata.personal_commitment:
-- SHA-256 of the salt, a newline and the kept fields' canonical JSON). Erased with the fields by a
-- forgetting or a retention sweep: the line then still verifies in the chain, and nothing can test
-- a guess against the commitment.
ALTER TABLE mds_personal_data ADD COLUMN salt text;
