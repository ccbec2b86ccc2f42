-- Look-up tables of the access context: users (no password hashes here), tokens by hash, integrations.
CREATE TABLE access_users (
  user_id text PRIMARY KEY,
  username text NOT NULL UNIQUE,
  roles text[] NOT NULL,
  totp boolean NOT NULL,
  consecutive_failures int NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL
);

CREATE TABLE access_tokens (
  token_id text PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  owner_id text NOT NULL,
  name text NOT NULL,
  hint text NOT NULL,
  created_by text NOT NULL,
  transferred_roles text[] NOT NULL,
  scopes jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX access_tokens_owner ON access_tokens (owner_id);

CREATE TABLE access_integrations (
  integration_id text PRIMARY KEY,
  name text NOT NULL,
  integration jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
