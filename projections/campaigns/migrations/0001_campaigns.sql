-- Campaigns as imported: fields merged over the imports of a key ("" removes one), as their statistics
-- record shows them. activation (activated_at, else the campaign's first sent event) starts the
-- conversion window and orders the list.
CREATE TABLE campaigns (
  campaign_key text PRIMARY KEY,
  data jsonb NOT NULL,
  activation timestamptz,
  updated_at timestamptz NOT NULL
);

-- Message events of campaigns, once per (campaign, type, identifiers, time): the identifiers as sent
-- (phone normalised, e-mail lower-cased), and the person they resolve to (see campaign-stats.sql.ts),
-- kept current as customers change. An event may precede its campaign.
CREATE TABLE campaign_events (
  campaign_key text NOT NULL,
  type text NOT NULL,
  identity text NOT NULL,
  at timestamptz NOT NULL,
  ext text,
  phone text,
  email text,
  token text,
  person text NOT NULL,
  logged_at timestamptz NOT NULL,
  PRIMARY KEY (campaign_key, type, identity, at)
);
CREATE INDEX campaign_events_person ON campaign_events (person, campaign_key) WHERE type = 'sent';
CREATE INDEX campaign_events_all_persons ON campaign_events (person);
CREATE INDEX campaign_events_ext ON campaign_events (ext) WHERE ext IS NOT NULL;
CREATE INDEX campaign_events_phone ON campaign_events (phone) WHERE phone IS NOT NULL;
CREATE INDEX campaign_events_email ON campaign_events (email) WHERE email IS NOT NULL;
CREATE INDEX campaign_events_token ON campaign_events (token) WHERE token IS NOT NULL;

-- The person each sale transaction resolves to, kept current as sales and customers change: the
-- statistics find an audience's sales through it. Filled once the first campaign event arrives.
CREATE TABLE campaign_sale_people (
  sale_external_id text PRIMARY KEY,
  ext text,
  phone text,
  email text,
  person text
);
CREATE INDEX campaign_sale_people_person ON campaign_sale_people (person) WHERE person IS NOT NULL;
CREATE INDEX campaign_sale_people_ext ON campaign_sale_people (ext) WHERE ext IS NOT NULL;
CREATE INDEX campaign_sale_people_phone ON campaign_sale_people (phone) WHERE phone IS NOT NULL;
CREATE INDEX campaign_sale_people_email ON campaign_sale_people (email) WHERE email IS NOT NULL;

-- Each campaign's statistics as last computed (null for draft and EXT campaigns), when its figures'
-- inputs last changed (log time), what they counted (the sales and products whose changes make them
-- stale), and the campaign's record as the list answers it (JSON text, written when computed).
CREATE TABLE campaign_stats (
  campaign_key text PRIMARY KEY,
  stats json,
  record text NOT NULL,
  modified_at timestamptz,
  sale_ids text[] NOT NULL,
  product_ids text[] NOT NULL
);
CREATE INDEX campaign_stats_sales ON campaign_stats USING gin (sale_ids);
CREATE INDEX campaign_stats_products ON campaign_stats USING gin (product_ids);

-- The list's order: activation (campaigns without one last when descending), ties by key.
CREATE INDEX campaigns_order ON campaigns ((coalesce(activation, '-infinity'::timestamptz)), campaign_key);
