-- The settings' time zone as of the page being applied (the log's SettingsChanged): a campaign's
-- 30-day window, its sales' days and date-only sales are days in that zone (README "Campaign statistics").
CREATE TABLE campaign_settings (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  timezone text NOT NULL
);
INSERT INTO campaign_settings (id, timezone) VALUES (true, 'UTC');

-- Ascending order puts campaigns without an activation last too.
CREATE INDEX campaigns_order_ascending ON campaigns ((coalesce(activation, 'infinity'::timestamptz)), campaign_key);
