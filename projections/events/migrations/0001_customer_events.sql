-- Customer events as imported. `id` was assigned in the command and is stored in the log, so it is
-- the same after any rebuild. The customer is linked through its identifiers when read (so an event
-- of a customer imported later is linked once that customer arrives).
CREATE TABLE customer_events (
  id bigint PRIMARY KEY,
  type text NOT NULL,
  date timestamptz NOT NULL,
  customer_external_id text,
  phone text,
  email text,
  customer_token text,
  data jsonb NOT NULL,
  is_deleted boolean NOT NULL DEFAULT false,
  position bigint NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX customer_events_type ON customer_events (type, id);
CREATE INDEX customer_events_date ON customer_events (date, id);
CREATE INDEX customer_events_customer ON customer_events (customer_external_id, id) WHERE customer_external_id IS NOT NULL;
CREATE INDEX customer_events_phone ON customer_events (phone, id) WHERE phone IS NOT NULL;
CREATE INDEX customer_events_email ON customer_events (email, id) WHERE email IS NOT NULL;
CREATE INDEX customer_events_token ON customer_events (customer_token, id) WHERE customer_token IS NOT NULL;
