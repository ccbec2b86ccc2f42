-- Beyond the spec (docs/reference/campaigns.md#beyond-the-spec). Written by the same statement as
-- campaign_stats, for the same campaigns; none of these tables holds an identifier of a person.

-- A campaign's figures per day in the settings' time zone (the daily series): every day of its
-- conversion window (31), zeros included, and every other day with one of its events. Event counts as
-- stats.events counts them; unique_* are audience members; sales are its counted sales.
CREATE TABLE campaign_days (
  campaign_key text NOT NULL,
  day date NOT NULL,
  sent bigint NOT NULL,
  delivered bigint NOT NULL,
  opens bigint NOT NULL,
  clicks bigint NOT NULL,
  unsubscribes bigint NOT NULL,
  spam_reports bigint NOT NULL,
  bounces bigint NOT NULL,
  unique_opens bigint NOT NULL,
  unique_clicks bigint NOT NULL,
  total_sales bigint NOT NULL,
  total_revenue bigint NOT NULL,
  sales_for_conversion bigint NOT NULL,
  PRIMARY KEY (campaign_key, day)
);

-- Each counted sale of a campaign, with what the sales figures add up, so that a list filtered by
-- sales_start/sales_end sums rows instead of computing figures: its time and day, its buyer as an
-- ordinal within the campaign's audience (a count of distinct buyers needs one; it names no one),
-- whether it converted, its total and its rows' units and revenue split by the campaign's products.
CREATE TABLE campaign_sales (
  campaign_key text NOT NULL,
  at timestamptz NOT NULL,
  day date NOT NULL,
  member integer NOT NULL,
  converted boolean NOT NULL,
  revenue bigint NOT NULL,
  units numeric NOT NULL,
  own_units numeric NOT NULL,
  own_revenue numeric NOT NULL,
  other_units numeric NOT NULL,
  other_revenue numeric NOT NULL
);
CREATE INDEX campaign_sales_at ON campaign_sales (campaign_key, at);

-- The counted sales' rows by product category (stats.sales.product_categories), per sale time.
CREATE TABLE campaign_sale_categories (
  campaign_key text NOT NULL,
  at timestamptz NOT NULL,
  day date NOT NULL,
  title text NOT NULL,
  units numeric NOT NULL,
  revenue numeric NOT NULL,
  discount numeric NOT NULL
);
CREATE INDEX campaign_sale_categories_at ON campaign_sale_categories (campaign_key, at);

-- The rates' denominator (stats.performance.audience_reached), for the rates of a filtered list.
ALTER TABLE campaign_stats ADD COLUMN reached bigint NOT NULL DEFAULT 0;
