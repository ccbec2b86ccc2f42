-- When a bulk update (POST /api/data/query/) last reached the event; null: never (retrieval shows created_at).
ALTER TABLE customer_events ADD COLUMN updated_at timestamptz;
