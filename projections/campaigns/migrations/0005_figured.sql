-- The transaction that last computed the campaign's figures (pg_current_xact_id, never reused): a
-- reader that keeps a campaign's figures for a sales range keeps them under it, and a new value means
-- the sales they sum were replaced.
ALTER TABLE campaign_stats ADD COLUMN figured bigint NOT NULL DEFAULT 0;
