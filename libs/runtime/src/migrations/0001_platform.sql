-- Platform bookkeeping shared by all contexts. (The migrations table itself is created by the runner.)
CREATE TABLE mds_instance (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  instance_id uuid NOT NULL DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO mds_instance DEFAULT VALUES;
