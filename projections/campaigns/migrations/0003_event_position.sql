-- Where in the log the import that logged each campaign event is (of identical ones, the first): a
-- customer's export names that run (GET /api/data/customers/{external_id}/export/).
ALTER TABLE campaign_events ADD COLUMN position bigint;
