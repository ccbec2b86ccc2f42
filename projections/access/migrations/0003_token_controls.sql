-- Operator controls: expiry, last use, revocation of tokens (listed in log order); integrations switched on and off.
ALTER TABLE access_tokens
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN last_used_at timestamptz,
  ADD COLUMN revoked_at timestamptz,
  ADD COLUMN revoked_by text,
  ADD COLUMN log_position bigint NOT NULL DEFAULT 0;
CREATE INDEX access_tokens_listed ON access_tokens (log_position);
CREATE INDEX access_tokens_owner_listed ON access_tokens (owner_id, log_position);

ALTER TABLE access_integrations ADD COLUMN enabled boolean NOT NULL DEFAULT true;
