-- Attempts by reference: what an attempt sent (its head, template key and message numbers) instead
-- of the whole request text, which is rebuilt from the messages when an entry is read; http_request
-- stays for attempts recorded before, and for those whose body masking changed.
ALTER TABLE outlet_log ADD COLUMN request jsonb;

-- Every content template an outlet has had, by key (libs/datatargets templateKey).
CREATE TABLE outlet_templates (
  outlet_id text NOT NULL,
  template text NOT NULL,
  content jsonb,
  PRIMARY KEY (outlet_id, template)
);
