-- A digest of what a campaign's range figures are computed from (its record, its counted sales and
-- their rows by category, its reached audience): a reader that keeps a campaign's figures for a sales
-- range keeps them under it; a new digest means new inputs. A function of the log, as the rest is.
ALTER TABLE campaign_stats ADD COLUMN figured text NOT NULL DEFAULT '';
